// What a provider is, as data and pure functions. The provider skeleton (this folder) turns any
// ProviderDefinition into a controller set with docs/kubeairunway.md's lifecycle: selection filter, finalizer with the
// 5-minute cleanup timeout, pause, compatibility, transform + overrides + labels + ownerReference, drift
// revert, identity-field recreation and status mapping written with server-side apply under the provider's
// own field manager. Each provider (../providers/<name>/) supplies only what differs; its compatibility rules
// and documented overrides live with the admission logic in ../validation/ (keyed by provider name).

import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import type {
  InferenceProviderConfigSpec,
  ModelDeployment,
  ModelDeploymentPhase,
} from '../../../apis/kubeairunway/index.ts';

/** the unified status a provider maps its upstream object to (docs/kubeairunway.md: "Status Mapping") */
export interface MappedStatus {
  phase: Exclude<ModelDeploymentPhase, 'Terminating'>;
  /** extracted from the upstream status when docs/kubeairunway.md's table says so */
  message?: string;
  replicas?: { desired?: number; ready?: number; available?: number };
  endpoint?: { service: string; port: number };
}

export interface ProviderDefinition<U extends KubeObject = KubeObject> {
  /** status.provider.name value, InferenceProviderConfig name, `modelplane provider <name>` */
  name: string;
  /** how messages name it: KAITO, Dynamo, KubeRay, AIM */
  displayName: string;
  /** the upstream kind it builds (one object per ModelDeployment, same name and namespace) */
  upstream: KindRef<U>;
  /** the plural of the upstream kind, for RBAC */
  upstreamResource: string;
  /**
   * the label selector of the upstream operator's Deployment (its Helm chart's labels): the provider is
   * ready only while one has an available replica (operator-check.ts). Absent: no operator to check.
   */
  operatorSelector?: string;
  version: string;
  /** registered as its InferenceProviderConfig spec at start (capabilities + CEL selection rules) */
  config: InferenceProviderConfigSpec;
  /**
   * Pure: the desired upstream object for a compatible deployment, WITHOUT ownerReference, the
   * `kubeairunway.ai/` label propagation, managed-by label or overrides (the skeleton adds those, the same way
   * for every provider). Throw an Error with a message naming the field when the spec cannot be built.
   */
  transform(md: ModelDeployment): U;
  /**
   * Pure: spec.provider.overrides translated into the object to deep-merge into the transformed upstream
   * object (nested maps merge, anything else replaces). Omitted = the overrides are merged as they are.
   * Dynamo's `routerMode`, for one, is not a DynamoGraphDeployment field and becomes an env var.
   */
  overridePatch?(md: ModelDeployment): Record<string, unknown>;
  /** Pure: docs/kubeairunway.md's status-mapping table for this provider, message extraction included. */
  mapStatus(upstream: U, md: ModelDeployment): MappedStatus;
  /**
   * Pure, optional: objects applied beside the upstream one (owned by the ModelDeployment, garbage-collected
   * with it), e.g. llm-d's Service; `extraResources` names their resources for RBAC.
   */
  extraObjects?(md: ModelDeployment): KubeObject[];
  extraResources?: ReadonlyArray<{ group: string; resource: string }>;
  /**
   * false: the provider never mounts spec.model.storage (its compatibility check refuses it), so it neither
   * watches nor may touch PVCs and Jobs. Default true: the skeleton creates the managed PVCs and the download
   * Job, and the transform mounts the volumes (docs/kubeairunway.md, "Model storage").
   */
  storage?: boolean;
  /**
   * Optional: objects of kinds the cluster may not serve (llm-d's InferencePool, from the Gateway API
   * Inference Extension), applied beside the upstream object only while their kind is served. One that
   * `build` stops returning is deleted.
   */
  optionalObjects?: ReadonlyArray<OptionalObject>;
}

export interface OptionalObject {
  kind: KindRef<KubeObject>;
  /** for RBAC */
  resource: { group: string; resource: string };
  /** the object's name for a deployment (where the provider looks for it) */
  name(md: ModelDeployment): string;
  /** Pure: the object to apply, or undefined when the deployment wants none */
  build(md: ModelDeployment): KubeObject | undefined;
}
