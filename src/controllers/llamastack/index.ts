// The `llamastack` controller set: LlamaStackDistribution → generated config.yaml (immutable ConfigMap),
// Deployment, Service and the optional PVC, PDB, HPA, NetworkPolicy and Ingress. See docs/llamastack.md.

import type { ImageRegistry } from '@modelplane/runtime/registry';
import { KAR_GROUP } from '../../apis/kubeairunway/index.ts';
import { LLS_GROUP } from '../../apis/llamastack/index.ts';
import { READ, rule, WRITE } from '../rbac.ts';
import type { ControllerSet } from '../registry.ts';
import { registerLlamaStackController } from './controller.ts';
import { REFERENCE_RECHECK_MS } from './names.ts';
import { type DigestRegistry, OciConfigResolver } from './oci-resolver.ts';
import { clusterServiceUrl } from './server-health.ts';

export {
  type LlamaStackControllerOptions,
  REFERENCES_INDEX,
  referencesIndex,
  registerLlamaStackController,
} from './controller.ts';
export { llamaStackPipeline, llamaStackReconciler } from './reconciler.ts';

/** base configs from image labels, through the operator's registry client when it can name digests */
function ociResolverFor(registry: ImageRegistry | undefined): OciConfigResolver | undefined {
  if (!registry?.imageDigest) return undefined;
  return new OciConfigResolver(registry as DigestRegistry, { tagRecheckMs: REFERENCE_RECHECK_MS });
}

export function llamaStackControllerSet(): ControllerSet {
  return {
    name: 'llamastack',
    description:
      'Llama Stack servers: LlamaStackDistribution → generated config.yaml (immutable ConfigMap) + Deployment + Service',
    register: (mgr, env) => {
      const ociResolver = ociResolverFor(env.imageRegistry);
      return registerLlamaStackController(mgr, {
        operatorNamespace: env.podNamespace,
        serviceUrl: env.serviceUrl ?? clusterServiceUrl,
        ...(ociResolver ? { ociResolver } : {}),
      });
    },
    rules: [
      rule(LLS_GROUP, ['llamastackdistributions'], READ),
      rule(LLS_GROUP, ['llamastackdistributions/status'], ['patch']),
      rule('', ['services', 'serviceaccounts', 'persistentvolumeclaims'], [...READ, ...WRITE]),
      // its generated ConfigMaps (hashed names, so no resourceNames) and the ones a distribution references.
      // RBAC cannot grant a list or watch by label, so the verbs are cluster-wide, but every list and watch it
      // makes selects by label or by name (names.ts); test/security/rbac-review.integration.test.ts checks that
      // in the API server's audit log
      rule('', ['configmaps'], [...READ, ...WRITE]),
      // referenced values go into the pods by secretKeyRef; the controller reads them by name, only to
      // hash them: it may not list or watch Secrets, so it can neither enumerate nor cache them
      rule('', ['secrets'], ['get']),
      rule('apps', ['deployments'], [...READ, ...WRITE]),
      rule('apps', ['replicasets'], READ),
      rule('policy', ['poddisruptionbudgets'], [...READ, ...WRITE]),
      rule('autoscaling', ['horizontalpodautoscalers'], [...READ, ...WRITE]),
      rule('networking.k8s.io', ['networkpolicies', 'ingresses'], [...READ, ...WRITE]),
      rule(KAR_GROUP, ['modeldeployments'], READ),
      rule('aim.eai.amd.com', ['aimservices'], READ),
    ],
  };
}
