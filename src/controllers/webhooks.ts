// The `webhooks` set: the operator's admission webhook server (src/webhooks) with every API group's hooks
// registered. It runs as its own identity because it is the one part of modelplane that touches a Secret (its
// own serving certificate, through a Role in its own namespace only); the controllers never do.
import { KAR_GROUP } from '../apis/kubeairunway/index.ts';
import { LLS_CRD_NAME } from '../apis/llamastack/index.ts';
import { startWebhookServer } from '../webhooks/index.ts';
import { registerModelDeploymentWebhooks } from './kubeairunway/webhook.ts';
import {
  pointLlamaStackConversion,
  registerLlamaStackConversion,
  registerLlamaStackDefaulting,
  registerLlamaStackValidation,
} from './llamastack/webhook.ts';
import { READ, rule } from './rbac.ts';
import type { ControllerSet } from './registry.ts';

export const WEBHOOK_SERVICE = 'modelplane-webhook-service';
export const WEBHOOK_CERT_SECRET = 'modelplane-webhook-server-cert';
export const WEBHOOK_CONFIGURATIONS = {
  mutating: 'modelplane-mutating-webhook-configuration',
  validating: 'modelplane-validating-webhook-configuration',
};
export const WEBHOOK_FIELD_MANAGER = 'modelplane-webhooks';

export function webhooksSet(): ControllerSet {
  return {
    name: 'webhooks',
    description:
      'The admission and conversion webhook server (ModelDeployment and LlamaStackDistribution), with in-process certificates',
    async register(mgr, env) {
      const client = mgr.client.withFieldManager(WEBHOOK_FIELD_MANAGER);
      const hooks = await startWebhookServer({
        client,
        port: env.webhook?.port ?? 9443,
        host: env.webhook?.host ?? '0.0.0.0',
        certSecret: { name: WEBHOOK_CERT_SECRET, namespace: env.podNamespace },
        service: { name: WEBHOOK_SERVICE, namespace: env.podNamespace },
        webhookConfigurations: [WEBHOOK_CONFIGURATIONS.mutating, WEBHOOK_CONFIGURATIONS.validating],
        registry: mgr.metrics.registry,
        logger: env.log,
      });
      mgr.onShutdown(() => hooks.close());
      await registerModelDeploymentWebhooks(hooks, mgr.cache);
      registerLlamaStackConversion(hooks);
      registerLlamaStackDefaulting(hooks);
      registerLlamaStackValidation(hooks, client, env.podNamespace);
      mgr.addReadyCheck('webhook-certificate', () => {
        const why = hooks.notReady();
        if (why) throw new Error(why);
      });
      await env.webhook?.onListening?.(hooks.url);
      // the configurations are ours to keep in step with what is registered; the caBundle is the injector's field
      for (const obj of hooks.configurations(WEBHOOK_CONFIGURATIONS)) await client.apply(obj, { force: true });
      await pointLlamaStackConversion(client, { name: WEBHOOK_SERVICE, namespace: env.podNamespace });
    },
    rules: [
      rule(KAR_GROUP, ['inferenceproviderconfigs'], READ),
      // the warning for a model name another deployment already serves on a Gateway
      rule(KAR_GROUP, ['modeldeployments'], READ),
      rule('apiextensions.k8s.io', ['customresourcedefinitions'], READ),
      // the caBundle of the conversion webhooks it serves, and nothing else
      { ...rule('apiextensions.k8s.io', ['customresourcedefinitions'], ['patch']), resourceNames: [LLS_CRD_NAME] },
      // LlamaStackDistribution admission: do the Secrets and ConfigMaps it references exist (single gets)
      rule('', ['secrets', 'configmaps'], ['get']),
      rule(
        'admissionregistration.k8s.io',
        ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
        [...READ, 'create', 'patch'],
      ),
    ],
    // its serving certificate's Secret, in its own namespace: created once (a create names no object, so it
    // cannot be narrowed by name), then read and renewed by name
    namespaceRules: [
      rule('', ['secrets'], ['create']),
      { ...rule('', ['secrets'], ['get', 'update']), resourceNames: [WEBHOOK_CERT_SECRET] },
    ],
  };
}
