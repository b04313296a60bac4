// The apiextensions.k8s.io/v1 schema and CRD shapes as they arrive over the wire (JSON), shared by the CRD
// checker, the custom-resource validator and the CEL rule compiler. Field names follow the Kubernetes
// JSON names exactly so a decoded CRD can be used without conversion.

/** one `x-kubernetes-validations` entry */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** FieldValueInvalid (default) | FieldValueForbidden | FieldValueRequired | FieldValueDuplicate */
  reason?: string;
  /** relative JSON path, e.g. `.spec.replicas` or `['name']` */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** apiextensions v1 JSONSchemaProps: the node type of a CRD's `openAPIV3Schema` */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** a single schema; the array (tuple) form is rejected by checkCrd */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** `false` is allowed only as the bare boolean; structural schemas use a schema here for maps */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  /** atomic | set | map */
  'x-kubernetes-list-type'?: string;
  /** granular | atomic */
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: { jsonPath: string }[];
}

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  caBundle?: string;
}

export interface CustomResourceConversion {
  /** None | Webhook */
  strategy: string;
  webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  /** Namespaced | Cluster */
  scope: string;
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinition {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; generateName?: string; [key: string]: unknown };
  spec: CustomResourceDefinitionSpec;
  status?: unknown;
}
