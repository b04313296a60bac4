// Admission webhooks (MutatingAdmissionWebhook and ValidatingAdmissionWebhook) and the HTTPS webhook
// client they share with CRD conversion.

export {
  type CompiledWebhook,
  compileWebhook,
  MUTATING_CONFIGS,
  VALIDATING_CONFIGS,
  WebhookConfigCache,
} from './config.ts';
export { ServiceEndpoints } from './service-endpoints.ts';
export { type AdmissionHost, WebhookAdmission } from './webhook-admission.ts';
export { postJson, resolveTarget, WebhookCallError, type WebhookClientConfig } from './webhook-client.ts';
