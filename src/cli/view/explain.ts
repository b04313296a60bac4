// What `modelplane explain aimsvc/NAME` runs (its flags are in ../explain.ts): reads an AIMService's chain
// through the client and prints the paragraph of explain-chain.ts, which the dashboard's page shows too.
import { readFileSync } from 'node:fs';
import { KubeClient } from '@modelplane/runtime/client';
import { kindRef } from '@modelplane/runtime/meta';
import { type ChainObject, chainOf, explainChain, type ServiceChain } from './explain-chain.ts';

const AIM = 'aim.eai.amd.com/v1alpha1';

/**
 * reads the chain of `namespace/name` through `client` (missing links are simply absent): the walk of
 * chainOf is run until every object it asks for has been read (service → model, template, cache → artifacts)
 */
export async function readChain(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<ServiceChain | undefined> {
  const service = await client.getOrUndefined(kindRef<ChainObject>(AIM, 'AIMService'), name, namespace);
  if (!service) return undefined;
  const read = new Map<string, ChainObject | null>();
  const listed = new Map<string, ChainObject[]>();
  for (;;) {
    const wanted = new Map<string, () => Promise<void>>();
    const chain = chainOf(service, {
      get: (kind, n, ns) => {
        const key = `${kind}/${ns ?? ''}/${n}`;
        if (!read.has(key))
          wanted.set(key, async () => {
            read.set(key, (await client.getOrUndefined(kindRef<ChainObject>(AIM, kind), n, ns)) ?? null);
          });
        return read.get(key) ?? undefined;
      },
      list: (kind, ns) => {
        const key = `${kind}/${ns ?? ''}`;
        if (!listed.has(key))
          wanted.set(`list ${key}`, async () => {
            const kr = kindRef<ChainObject>(AIM, kind);
            listed.set(key, (await client.list(kr, ns ? { namespace: ns } : {})).items);
          });
        return listed.get(key) ?? [];
      },
    });
    if (wanted.size === 0) return chain;
    await Promise.all([...wanted.values()].map((load) => load()));
  }
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
