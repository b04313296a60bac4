// Installing CRDs from code: apply, then wait until the API server reports them Established and serves
// them in discovery, because a CR written before that fails with "no matches for kind".

import type { KubeClient } from '../client/client.ts';
import { isNoKindMatch } from '../client/errors.ts';
import { type CustomResourceDefinition, CustomResourceDefinitions } from '../client/kinds.ts';
import { sleep } from '../controller/backoff.ts';

export interface EnsureCrdOptions {
  fieldManager?: string;
  timeoutMs?: number;
}

/** applies `crd` and resolves once every served version maps through discovery */
export async function ensureCrd(
  client: KubeClient,
  crd: CustomResourceDefinition,
  opts: EnsureCrdOptions = {},
): Promise<CustomResourceDefinition> {
  const fieldManager = opts.fieldManager ?? client.fieldManager ?? 'modelplane-crds';
  const applied = await client.apply<CustomResourceDefinition>(crd, { fieldManager, force: true });
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const name = crd.metadata.name ?? '';
  for (;;) {
    const live = await client.getOrUndefined(CustomResourceDefinitions, name);
    const established = live?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (established) {
      let served = true;
      for (const v of crd.spec.versions.filter((x) => x.served)) {
        const apiVersion = `${crd.spec.group}/${v.name}`;
        client.mapper.invalidate(apiVersion);
        try {
          await client.mapper.mapping(apiVersion, crd.spec.names.kind);
        } catch (err) {
          if (!isNoKindMatch(err)) throw err;
          served = false;
        }
      }
      if (served) return live ?? applied;
    }
    if (Date.now() > deadline)
      throw new Error(`CRD ${name}: not Established and served within ${opts.timeoutMs ?? 30_000} ms`);
    await sleep(100);
  }
}
