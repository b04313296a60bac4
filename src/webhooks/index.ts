// The admission and conversion webhook server: register handlers, start it with certificates it manages
// itself, and generate the webhook configurations that point kube-apiserver at it.

export {
  CaBundleInjector,
  type ConfigurationKind,
  type ConfigurationTarget,
  configurationPatch,
  crdPatch,
  type InjectorOptions,
  MutatingWebhookConfigurations,
  ValidatingWebhookConfigurations,
} from './ca-injector.ts';
export {
  type CertificateConfig,
  CertificateSecret,
  type CertReconcileResult,
  type ForcedRotation,
} from './cert-secret.ts';
export {
  type CaFacts,
  type CaOptions,
  type CertMaterial,
  type CertValidity,
  generateCA,
  inspectCertData,
  issueServingCert,
  type KeyPairPem,
  type Requirements,
  type SecretFacts,
  type ServingFacts,
  type ServingOptions,
  splitPemCerts,
  stillTrusted,
  validity,
} from './certs.ts';
export {
  type BuildOptions,
  buildWebhookConfigurations,
  type ClientTarget,
  conversionStanza,
  type ServiceTarget,
  type UrlTarget,
} from './configurations.ts';
export {
  type ConversionRequest,
  type ConversionResponse,
  type Converter,
  convertAll,
  decodeConversionReview,
  encodeConversionReview,
} from './conversion.ts';
export {
  type AdmissionWebhookSpec,
  type ConversionWebhookSpec,
  type Dispatched,
  dispatchAdmission,
  dispatchConversion,
  type Route,
  rejectBody,
} from './dispatch.ts';
export { WebhookMetrics, type WebhookResult } from './metrics.ts';
export {
  type AdmissionRequest,
  type AdmissionResponse,
  aggregateMessage,
  BadReview,
  computePatch,
  type Denial,
  decodeAdmissionReview,
  denialFromErrors,
  deny,
  encodeAdmissionReview,
  erroredResponse,
  type FieldError,
  type GroupVersionKind,
  type GroupVersionResource,
  isDenial,
  type Mutation,
  type Mutator,
  type MutatorResult,
  mutated,
  mutationResponse,
  type Operation,
  type PatchOp,
  type ResponseStatus,
  type ReviewVersion,
  type StatusCause,
  type UserInfo,
  type ValidationOutcome,
  type Validator,
  type ValidatorResult,
  validationResponse,
} from './review.ts';
export { decideRotation, defaultRenewBefore, type RotationDecision, type RotationPolicy } from './rotation.ts';
export {
  describeResource,
  describeRules,
  type RuleOperation,
  type RuleWithOperations,
  ruleCoversOperation,
  ruleCoversResource,
} from './rules.ts';
export {
  DEFAULT_MAX_BODY_BYTES,
  WebhookHttpServer,
  type WebhookHttpServerOptions,
  type WebhookRegistry,
} from './server.ts';
export {
  type CertificateTimings,
  type StartWebhookServerOptions,
  startWebhookServer,
  type WebhookServerHandle,
} from './start.ts';
