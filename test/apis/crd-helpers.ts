import assert from 'node:assert/strict';
import { type RawTarget, raw } from '@modelplane/apiserver/testing';
import type { CustomResourceDefinition } from '@modelplane/runtime/client';

/** creates `crd` and resolves with the live object once it is Established */
export async function createCrdAndWait(
  server: RawTarget,
  crd: CustomResourceDefinition,
  timeoutMs = 10_000,
): Promise<CustomResourceDefinition> {
  const created = await raw(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  assert.equal(created.status, 201, `${crd.metadata.name}: ${created.text}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = (
      await raw(server, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`)
    ).json() as CustomResourceDefinition;
    if (live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return live;
    if (Date.now() > deadline) throw new Error(`${crd.metadata.name} not Established: ${JSON.stringify(live.status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
