// A provider's write of its own kind refused because the cluster no longer serves it (its CRD deleted) is
// said as the missing CRD (docs/kubeairunway.md, "Upstream operator"), whichever way the refusal comes: the
// client's discovery already knows (no matches for kind), or the server answers the apply 404 (discovery was
// older than the deletion, as on a real kube-apiserver). Any other failure keeps its own words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, NoKindMatchError } from '@modelplane/runtime/client';
import { categorize } from '../../../src/engine/index.ts';
import { kindNotServedError } from '../../../src/controllers/kubeairunway/provider/pipeline.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../../../src/controllers/kubeairunway/providers/index.ts';

const kuberay = BUILTIN_PROVIDER_DEFINITIONS.kuberay;
const CRD_MISSING =
  "KubeRay's RayService CRD (rayservices.ray.io, ray.io/v1) is not installed in the cluster; waiting for it; retrying with backoff";
const notFound = (verb: string, path: string) =>
  new ApiError({
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
    verb,
    path,
  });
const APPLY_PATH = '/apis/ray.io/v1/namespaces/ml/rayservices/llama?fieldManager=kuberay-provider&force=true';

describe('a provider write of its own kind that is not served', () => {
  for (const [name, err] of [
    ['the client refused it (no matches for kind)', new NoKindMatchError('ray.io/v1', 'RayService')],
    ['the server answered the apply 404', notFound('PATCH', APPLY_PATH)],
  ] as const) {
    it(`${name}: the missing CRD, retried`, () => {
      const out = kindNotServedError(kuberay, categorize(err));
      assert.equal(out.category, 'Infrastructure');
      assert.equal(out.reason, 'KindNotServed');
      assert.equal(out.message, CRD_MISSING);
    });
  }

  it('another kind, a read, or another resource of the group keeps its own error', () => {
    for (const err of [
      new NoKindMatchError('ray.io/v1', 'RayCluster'),
      new NoKindMatchError('ray.io/v2', 'RayService'),
      notFound('GET', '/apis/ray.io/v1/namespaces/ml/rayservices/llama'),
      notFound('PATCH', '/apis/ray.io/v1/namespaces/ml/rayclusters/llama?force=true'),
      notFound('PATCH', '/api/v1/namespaces/ml/services/rayservices'),
    ]) {
      const before = categorize(err);
      assert.equal(kindNotServedError(kuberay, before), before, err.message);
    }
  });
});
