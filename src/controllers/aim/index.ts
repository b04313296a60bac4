// The `aim` controller set (docs/aim.md): runtime configs, models and services of aim.eai.amd.com.
import { READ, rule, WRITE } from '../rbac.ts';
import type { ControllerSet } from '../registry.ts';
import { ARTIFACT_RBAC_RULES, registerAimArtifactController } from './artifact/controller.ts';
import { CACHE_RBAC_RULES, registerAimTemplateCacheController } from './cache/controller.ts';
import { MODEL_RBAC_RULES, registerAimModelControllers } from './model/index.ts';
import { MODEL_SOURCE_RBAC_RULES, registerAimModelSourceController } from './model-source/index.ts';
import { RUNTIME_CONFIG_RBAC_RULES, registerAimRuntimeConfigControllers } from './runtime-config/index.ts';
import { registerAimServiceController } from './service/index.ts';
import {
  AIMArtifacts,
  AIMClusterModelSources,
  AIMClusterModels,
  AIMModels,
  AIMServices,
  AIMTemplateCaches,
} from './shared/kinds.ts';
import { LateSecretVersions, watchReferencedSecrets } from './shared/secret-references.ts';
import { registerAimTemplateControllers, TEMPLATE_RBAC_RULES } from './template/controller.ts';

export interface AimControllerSetOptions {
  /** how long a failed artifact download waits before its retry (default 5 min; tests shorten it) */
  artifactRetryMs?: number;
}

export function aimControllerSet(setOpts: AimControllerSetOptions = {}): ControllerSet {
  return {
    name: 'aim',
    description:
      'AIM runtime configs, models and services: AIMService → KServe InferenceService + Gateway API HTTPRoute',
    async register(mgr, env) {
      const opts = { operatorNamespace: env.operatorNamespace };
      await registerAimRuntimeConfigControllers(mgr, opts);
      const [models, clusterModels] = await registerAimModelControllers(mgr, {
        ...opts,
        ...(env.imageRegistry ? { registry: env.imageRegistry } : {}),
      });
      await registerAimTemplateControllers(mgr, opts);
      const caches = await registerAimTemplateCacheController(mgr, opts);
      // the Secret watch needs the controllers it feeds; the artifacts read its versions once it exists
      const secretVersions = new LateSecretVersions();
      const artifacts = await registerAimArtifactController(mgr, {
        ...opts,
        secretVersions,
        ...(setOpts.artifactRetryMs !== undefined ? { retryMs: setOpts.artifactRetryMs } : {}),
      });
      const services = await registerAimServiceController(mgr, opts);
      const sources = await registerAimModelSourceController(mgr, {
        ...opts,
        ...(env.imageRegistry ? { registry: env.imageRegistry } : {}),
      });
      const secretWatch = watchReferencedSecrets(mgr, env.operatorNamespace, [
        { kind: AIMModels, controller: models! },
        { kind: AIMClusterModels, controller: clusterModels! },
        { kind: AIMTemplateCaches, controller: caches },
        { kind: AIMArtifacts, controller: artifacts },
        { kind: AIMServices, controller: services },
        { kind: AIMClusterModelSources, controller: sources },
      ]);
      secretVersions.bind(secretWatch);
    },
    rules: [
      ...RUNTIME_CONFIG_RBAC_RULES,
      ...MODEL_RBAC_RULES,
      ...TEMPLATE_RBAC_RULES,
      ...CACHE_RBAC_RULES,
      ...ARTIFACT_RBAC_RULES,
      ...MODEL_SOURCE_RBAC_RULES,
      // image pull secrets named by models and model sources (docker config JSON for the registry client):
      // read one by one when a registry call needs them; every Secret an AIM object names is watched by a
      // metadata-only watch pinned to its name (fieldSelector metadata.name), so creating or fixing it
      // reconciles that object at once. Never listed, never cached (docs/security.md, "Least privilege")
      rule('', ['secrets'], ['get', 'watch']),
      rule('aim.eai.amd.com', ['aimservices'], READ),
      // the template-cache cleanup finalizer (metadata.finalizers, by merge patch); on deletion the finalizers
      // read the object's namespace once, to let a terminating namespace go
      rule('aim.eai.amd.com', ['aimservices'], ['patch']),
      rule('', ['namespaces'], ['get']),
      rule('aim.eai.amd.com', ['aimservices/status'], ['patch']),
      // auto-created AIMModels for spec.model.image
      rule('aim.eai.amd.com', ['aimmodels'], ['create', 'patch']),
      // Shared and Dedicated template caches for the services' templates
      rule('aim.eai.amd.com', ['aimtemplatecaches'], [...READ, ...WRITE]),
      rule('', ['nodes'], READ),
      rule('serving.kserve.io', ['inferenceservices'], [...READ, ...WRITE]),
      rule('gateway.networking.k8s.io', ['httproutes'], [...READ, ...WRITE]),
      // the KEDA HPA of an autoscaled predictor, for status.runtime
      rule('autoscaling', ['horizontalpodautoscalers'], READ),
      // the pods a download, discovery or predictor waits for, read live while it is not done (their
      // events and last log lines say why: docs/aim.md, "Every wait names its cause")
      rule('', ['pods'], READ),
      // a log is only ever read (pods/log serves get alone)
      rule('', ['pods/log'], ['get']),
      rule('', ['events'], ['list']),
    ],
  };
}
