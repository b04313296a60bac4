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
  for (;;) {
    const wanted = new Map<string, [kind: string, name: string, namespace?: string]>();
    const chain = chainOf(service, (kind, n, ns) => {
      const key = `${kind}/${ns ?? ''}/${n}`;
      if (!read.has(key)) wanted.set(key, [kind, n, ns]);
      return read.get(key) ?? undefined;
    });
    if (wanted.size === 0) return chain;
    await Promise.all(
      [...wanted].map(async ([key, [kind, n, ns]]) =>
        read.set(key, (await client.getOrUndefined(kindRef<ChainObject>(AIM, kind), n, ns)) ?? null),
      ),
    );
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
