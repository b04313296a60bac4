// The admission and conversion webhook server: register handlers, start it with certificates it manages
// itself, and generate the webhook configurations that point kube-apiserver at it.

export {
  CaBundleInjector,
  type ConfigurationKind,
  configurationPatch,
  type ConfigurationTarget,
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
  convertAll,
  type Converter,
  decodeConversionReview,
  encodeConversionReview,
} from './conversion.ts';
export {
  type AdmissionWebhookSpec,
  type ConversionWebhookSpec,
  dispatchAdmission,
  dispatchConversion,
  type Dispatched,
  rejectBody,
  type Route,
} from './dispatch.ts';
export { WebhookMetrics, type WebhookResult } from './metrics.ts';
export {
  type AdmissionRequest,
  type AdmissionResponse,
  aggregateMessage,
  BadReview,
  computePatch,
  decodeAdmissionReview,
  type Denial,
  denialFromErrors,
  deny,
  encodeAdmissionReview,
  erroredResponse,
  type FieldError,
  type GroupVersionKind,
  type GroupVersionResource,
  isDenial,
  mutated,
  type Mutation,
  mutationResponse,
  type Mutator,
  type MutatorResult,
  type Operation,
  type PatchOp,
  type ResponseStatus,
  type ReviewVersion,
  type StatusCause,
  type UserInfo,
  type ValidationOutcome,
  validationResponse,
  type Validator,
  type ValidatorResult,
} from './review.ts';
export { decideRotation, defaultRenewBefore, type RotationDecision, type RotationPolicy } from './rotation.ts';
export {
  describeResource,
  describeRules,
  ruleCoversOperation,
  ruleCoversResource,
  type RuleOperation,
  type RuleWithOperations,
} from './rules.ts';
export {
  DEFAULT_MAX_BODY_BYTES,
  WebhookHttpServer,
  type WebhookHttpServerOptions,
  type WebhookRegistry,
} from './server.ts';
export {
  type CertificateTimings,
  startWebhookServer,
  type StartWebhookServerOptions,
  type WebhookServerHandle,
} from './start.ts';
