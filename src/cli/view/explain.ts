// What `modelplane explain aimsvc/NAME` runs (its flags are in ../explain.ts): walks an AIMService's chain,
// service → model → template → cache → artifact → pods, and says in one paragraph the first thing that is
// not ready and why, from the conditions each controller already wrote. `explainChain` is pure, so the
// dashboard can show the same text from the objects it already has.
import { readFileSync } from 'node:fs';
import { KubeClient } from '@modelplane/runtime/client';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';

type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const AIM = 'aim.eai.amd.com/v1alpha1';
const K = {
  service: kindRef<Obj>(AIM, 'AIMService'),
  model: kindRef<Obj>(AIM, 'AIMModel'),
  clusterModel: kindRef<Obj>(AIM, 'AIMClusterModel'),
  template: kindRef<Obj>(AIM, 'AIMServiceTemplate'),
  clusterTemplate: kindRef<Obj>(AIM, 'AIMClusterServiceTemplate'),
  cache: kindRef<Obj>(AIM, 'AIMTemplateCache'),
  artifact: kindRef<Obj>(AIM, 'AIMArtifact'),
};

/** the objects of one service's chain, as far as they exist */
export interface ServiceChain {
  service: Obj;
  model?: Obj;
  template?: Obj;
  cache?: Obj;
  artifacts: Obj[];
}

const conditions = (o: Obj | undefined): Condition[] => (o?.status?.conditions as Condition[] | undefined) ?? [];
const where = (o: Obj) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** the condition that says why `o` is not ready: its first False component, else its first Unknown, else Ready */
export function firstProblem(o: Obj | undefined): Condition | undefined {
  const all = conditions(o);
  const components = all.filter((c) => c.type !== 'Ready' && c.type.endsWith('Ready'));
  const failed =
    components.find((c) => c.status === 'False') ?? all.find((c) => c.type === 'AuthValid' && c.status === 'False');
  const waiting = components.find((c) => c.status === 'Unknown');
  const ready = all.find((c) => c.type === 'Ready');
  if (failed) return failed;
  if (waiting) return waiting;
  return ready && ready.status !== 'True' ? ready : undefined;
}

const describe = (o: Obj, c: Condition) =>
  `${where(o)} (${o.status?.status ?? 'no status yet'}) has ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? '(no message)'}`.replace(
    /\s+:/,
    ':',
  );

function isReady(o: Obj | undefined): boolean {
  return o?.status?.status === 'Ready' || conditions(o).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** the chain's component on the service that points at an upstream object, in walking order */
const STEPS: ReadonlyArray<{ condition: string; next: (c: ServiceChain) => Obj[] }> = [
  { condition: 'ModelReady', next: (c) => (c.model ? [c.model] : []) },
  { condition: 'TemplateReady', next: (c) => (c.template ? [c.template] : []) },
  { condition: 'CacheReady', next: (c) => [...(c.cache ? [c.cache] : []), ...c.artifacts] },
];

/** one paragraph: where the chain stops and why */
export function explainChain(chain: ServiceChain): string {
  const s = chain.service;
  const state = s.status?.status ?? 'not reconciled yet';
  if (state === 'Running' && !firstProblem(s)) return `${where(s)} is Running: every link of its chain is ready.`;
  const path: string[] = [where(s)];
  for (const step of STEPS) {
    const c = conditions(s).find((x) => x.type === step.condition);
    if (!c || c.status === 'True') {
      for (const o of step.next(chain)) path.push(where(o));
      continue;
    }
    // the service waits on this link: go down it to the first object that is not ready
    for (const o of step.next(chain)) {
      path.push(where(o));
      if (isReady(o)) continue;
      const p = firstProblem(o);
      if (p) return `${where(s)} is ${state}. Walking ${path.join(' → ')}: ${describe(o, p)}.`;
    }
    return `${where(s)} is ${state}. Walking ${path.join(' → ')}: ${describe(s, c)}.`;
  }
  const own = firstProblem(s);
  if (own) return `${where(s)} is ${state}. Its model, template and cache are ready; ${describe(s, own)}.`;
  return `${where(s)} is ${state}, and no condition names a problem yet (the controller may not have reconciled it).`;
}

/** reads the chain of `namespace/name` through `client` (missing links are simply absent) */
export async function readChain(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<ServiceChain | undefined> {
  const service = await client.getOrUndefined(K.service, name, namespace);
  if (!service) return undefined;
  const st = service.status ?? {};
  const ref = (r: any) => (r?.name ? (r as { name: string; namespace?: string }) : undefined);
  const modelRef =
    ref(st.resolvedModel) ?? ref({ name: service.spec?.model?.name ?? service.spec?.model?.ref, namespace });
  const model = modelRef
    ? ((await client.getOrUndefined(K.model, modelRef.name, namespace)) ??
      (await client.getOrUndefined(K.clusterModel, modelRef.name)))
    : undefined;
  const tplRef = ref(st.resolvedTemplate) ?? ref({ name: service.spec?.template?.name, namespace });
  const template = tplRef
    ? ((await client.getOrUndefined(K.template, tplRef.name, namespace)) ??
      (await client.getOrUndefined(K.clusterTemplate, tplRef.name)))
    : undefined;
  const cacheName = st.cache?.templateCacheRef?.name as string | undefined;
  const cache = cacheName ? await client.getOrUndefined(K.cache, cacheName, namespace) : undefined;
  const artifacts: Obj[] = [];
  for (const a of Object.values((cache?.status?.artifacts ?? {}) as Record<string, { name?: string }>)) {
    const art = a.name ? await client.getOrUndefined(K.artifact, a.name, namespace) : undefined;
    if (art) artifacts.push(art);
  }
  return {
    service,
    ...(model ? { model } : {}),
    ...(template ? { template } : {}),
    ...(cache ? { cache } : {}),
    artifacts,
  };
}

export interface ExplainOptions {
  kubeconfig?: string;
  namespace?: string;
}

export async function runExplain(target: string, opts: ExplainOptions): Promise<void> {
  const m = /^(aimsvc|aimservice|aimservices)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(target);
  if (!m) {
    process.stderr.write(`modelplane explain: "${target}" is not aimsvc/NAME (an AIMService)\n`);
    process.exit(2);
  }
  const client = await KubeClient.create(opts.kubeconfig ? readFileSync(opts.kubeconfig, 'utf8') : undefined);
  const namespace = opts.namespace ?? 'default';
  try {
    const chain = await readChain(client, namespace, m[2]!);
    if (!chain) {
      process.stdout.write(`AIMService ${namespace}/${m[2]} does not exist.\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${explainChain(chain)}\n`);
  } finally {
    client.close();
  }
}
