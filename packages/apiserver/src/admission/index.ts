// Admission webhooks (MutatingAdmissionWebhook and ValidatingAdmissionWebhook) and the HTTPS webhook
// client they share with CRD conversion.
export { type AdmissionHost, WebhookAdmission } from './webhook-admission.ts';
export { ServiceEndpoints } from './service-endpoints.ts';
export {
  type CompiledWebhook,
  MUTATING_CONFIGS,
  VALIDATING_CONFIGS,
  WebhookConfigCache,
  compileWebhook,
} from './config.ts';
export { type WebhookClientConfig, WebhookCallError, postJson, resolveTarget } from './webhook-client.ts';
