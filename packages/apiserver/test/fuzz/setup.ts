// Before the fuzz run: the fixture namespace, the fuzz CRD (waited on until it is served), discovery of
// every served resource, and one valid fixture object of each kind so item/status/scale paths hit
// existing objects.
import { FIXTURE_NAME, FUZZ_CRD_NAME, FUZZ_GROUP, FUZZ_NAMESPACE, hasCorpusEntry, validObject } from './corpus.ts';
import type { Outcome, RawClient } from './http.ts';
import { fixtureName } from './requests.ts';
import type { Resource } from './types.ts';

const TIMEOUT_MS = 10_000;

async function call(
  client: RawClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const o: Outcome = await client.send(
    {
      method,
      path,
      headers: body ? { 'Content-Type': 'application/json' } : {},
      ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}),
    },
    TIMEOUT_MS,
  );
  if (o.kind !== 'response') throw new Error(`fuzz setup: ${method} ${path} got no response (${o.kind})`);
  let json: unknown;
  try {
    json = JSON.parse(o.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: o.status, json };
}

async function mustCall(client: RawClient, method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await call(client, method, path, body);
  if (r.status >= 300)
    throw new Error(`fuzz setup: ${method} ${path} failed with ${r.status}: ${JSON.stringify(r.json)?.slice(0, 400)}`);
  return r.json;
}

/** every served resource of every group version, from legacy discovery, in a stable order */
export async function discoverResources(client: RawClient): Promise<Resource[]> {
  const gvs: { group: string; version: string; path: string }[] = [{ group: '', version: 'v1', path: '/api/v1' }];
  const groups = (await mustCall(client, 'GET', '/apis')) as {
    groups: { name: string; versions: { version: string }[] }[];
  };
  for (const g of groups.groups)
    for (const v of g.versions) gvs.push({ group: g.name, version: v.version, path: `/apis/${g.name}/${v.version}` });
  const out: Resource[] = [];
  for (const gv of gvs) {
    const list = (await mustCall(client, 'GET', gv.path)) as {
      resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
    };
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      const subresources = list.resources
        .filter((s) => s.name.startsWith(`${r.name}/`))
        .map((s) => s.name.slice(r.name.length + 1));
      out.push({
        group: gv.group,
        version: gv.version,
        plural: r.name,
        kind: r.kind,
        namespaced: r.namespaced,
        subresources,
        verbs: r.verbs ?? [],
      });
    }
  }
  return out.sort((a, b) => `${a.group}/${a.version}/${a.plural}`.localeCompare(`${b.group}/${b.version}/${b.plural}`));
}

async function waitFor(what: string, pred: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fuzz setup: ${what} did not happen within ${timeoutMs} ms`);
}

const crdRef = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', namespaced: false };

/** Creates the namespace and the fuzz CRD, waits until the CRD is served, then returns the resources. */
export async function prepareTarget(client: RawClient): Promise<Resource[]> {
  await mustCall(client, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: FUZZ_NAMESPACE },
  });
  // no labels: a deletecollection by label must not be able to take the fuzz CRD down with the victims
  const fuzzCrd = validObject(crdRef, FUZZ_CRD_NAME, undefined);
  (fuzzCrd.metadata as Record<string, unknown>).labels = undefined;
  await mustCall(client, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', fuzzCrd);
  await waitFor(
    `the CRD ${FUZZ_CRD_NAME} being served`,
    async () =>
      (await call(client, 'GET', `/apis/${FUZZ_GROUP}/v1/namespaces/${FUZZ_NAMESPACE}/gadgets`)).status === 200,
  );
  return discoverResources(client);
}

const base = (r: Resource) => (r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`);

/**
 * Creates the fixture object of every kind the corpus knows. Returns the kinds whose valid fixture was
 * refused (each is itself a finding: a valid object must be accepted).
 */
export async function createFixtures(client: RawClient, resources: Resource[], existingOk = false): Promise<string[]> {
  const refused: string[] = [];
  const seen = new Set<string>();
  if (existingOk)
    await call(client, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: FUZZ_NAMESPACE },
    });
  for (const r of resources) {
    if (!hasCorpusEntry(r)) continue;
    const storage = `${r.group}/${r.plural}`;
    // core/v1 and events.k8s.io/v1 Events share storage under different kinds; both get a fixture name of their own
    const name = r.plural === 'events' && r.group ? `${FIXTURE_NAME}-v1` : fixtureName(r);
    if (seen.has(`${storage}/${name}`)) continue;
    seen.add(`${storage}/${name}`);
    const ns = r.namespaced ? FUZZ_NAMESPACE : undefined;
    const path = ns ? `${base(r)}/namespaces/${ns}/${r.plural}` : `${base(r)}/${r.plural}`;
    const res = await call(client, 'POST', path, validObject(r, name, ns));
    if (res.status !== 201 && !(existingOk && res.status === 409))
      refused.push(
        `${r.kind} (${storage}): ${res.status} ${JSON.stringify((res.json as { message?: string })?.message ?? res.json)?.slice(0, 300)}`,
      );
  }
  return refused;
}
