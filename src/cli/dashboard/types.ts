// What the dashboard's backend sends the browser (docs/dashboard.md). Shared by src/cli/dashboard and web/,
// so both sides agree on the shape; no value here is ever a Secret's content.
import type { SelectionExplanation } from '../../controllers/kubeairunway/selection/explanation.ts';

export interface KindInfo {
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
  primary: boolean;
}

export interface ResourceSummary {
  /** `group/Kind/namespace/name`: the id pages and streams use */
  key: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  state: string;
  reason: string;
  ready: boolean;
  tone: 'ok' | 'progress' | 'fail' | 'idle';
  createdAt?: string;
  /** a short kind-specific note for the overview, e.g. the chosen provider or the route path */
  detail?: string;
}

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface EventView {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastSeen: string;
  source: string;
  /** set when the event is about one of the resource's children, e.g. `Workspace gemma-cpu` */
  object?: string;
}

/** an object related to a resource (a child it owns, or its owner); `key` when it has its own page */
export interface ChildView
  extends Pick<ResourceSummary, 'group' | 'kind' | 'namespace' | 'name' | 'state' | 'reason' | 'tone'> {
  key?: string;
}

/** why a ModelDeployment got its provider (computed next to selectProvider) */
export interface SelectionPanel extends SelectionExplanation {
  kind: 'selection';
}

export interface RoutePanel {
  kind: 'route';
  /** status.routing.path: where the gateway sends traffic */
  statusPath?: string;
  enabled: boolean;
  /** the template used and where it came from (the service, its runtime config, or the default) */
  template?: string;
  source?: string;
  /** each `{placeholder}` of the template and the value it rendered to */
  placeholders: Array<{ expression: string; value?: string; error?: string }>;
  renderedPath?: string;
  runtimeConfig?: string;
  gateway?: string;
  problem?: string;
}

export interface ConfigPanel {
  kind: 'config';
  title: string;
  /** the ConfigMap holding it */
  source: string;
  /** the generated configuration text; secret values appear only as references (e.g. `${env.LLSD_…}`) */
  text: string;
  secretRefs: string[];
}

export interface AutoscalerPoint {
  /** milliseconds since the epoch */
  t: number;
  load?: number;
  kvCache?: number;
  queue?: number;
  desired?: number;
  current?: number;
}

/** the thresholds the autoscaler applies to the variant, and the ConfigMap entry they come from */
export interface AutoscalerThresholds {
  /** KV-cache use (0..1) at which a replica counts as saturated */
  kvCache: number;
  /** requests waiting at which a replica counts as saturated */
  queue: number;
  source: string;
}

/** a scale decision the autoscaler announced, with its reason in words */
export interface AutoscalerMarker {
  t: number;
  reason: string;
  message: string;
}

export interface AutoscalerPanel {
  kind: 'autoscaler';
  points: AutoscalerPoint[];
  /** where the history comes from: the object's own status history, or what this dashboard observed */
  source: string;
  latest?: string;
  thresholds?: AutoscalerThresholds;
  markers: AutoscalerMarker[];
  /** the dashboard can send load to the variant's Service (`POST /api/load?key=…`) */
  canSendLoad?: boolean;
  /** a load the dashboard is sending now: when it ends */
  loadUntil?: number;
}

/** the objects an AIMService resolved (runtime config, model, template, template cache), in that order */
export interface ChainPanel {
  kind: 'chain';
  links: Array<ChildView & { role: string }>;
}

/** "Try it": the endpoints with a curl each, and whether the chat box can go through the Gateway */
export interface TryPanel {
  kind: 'try';
  /** the model name requests carry; empty when unknown (the server then answers with the one it serves) */
  model: string;
  endpoints: Array<{ via: 'gateway' | 'direct'; url: string; curl: string; note: string }>;
  canChat: boolean;
  /** why there is no chat box (canChat false), in the cluster's words: the condition that says so */
  noChat?: string;
}

/** an AIMService's "why is this not Running" paragraph: the text `modelplane explain aimsvc/NAME` prints */
export interface ExplainPanel {
  kind: 'explain';
  text: string;
  /** the service is Running (the text then says every link is ready) */
  running: boolean;
}

export type Panel = SelectionPanel | RoutePanel | ConfigPanel | AutoscalerPanel | ChainPanel | TryPanel | ExplainPanel;

/** a pod behind a resource, as `kubectl get pods -o wide` and `describe` would show it */
export interface PodView {
  key: string;
  namespace: string;
  name: string;
  phase: string;
  ready: boolean;
  node: string;
  restarts: number;
  containers: string[];
  /** why it is not running (ready) yet: unschedulable, image pull, crash loop… */
  reason?: string;
  createdAt?: string;
}

/** what the create form starts from when a person picks "deploy" in the catalog */
export interface DeployPrefill {
  name: string;
  namespace: string;
  modelId: string;
  provider: string;
  gpuCount: string;
  gpuType: string;
}

export interface CatalogTemplate {
  key: string;
  name: string;
  /** `1 x MI300X`, `CPU`… */
  hardware: string;
  state: string;
  tone: ResourceSummary['tone'];
  /** the nodes whose GPUs this template fits (the AIM controller's own rule) */
  fits: string[];
  deploy: DeployPrefill;
}

export interface CatalogModel {
  key: string;
  kind: string;
  namespace: string;
  name: string;
  /** the model it serves (the image's canonical name) */
  modelId: string;
  image: string;
  state: string;
  tone: ResourceSummary['tone'];
  templates: CatalogTemplate[];
  /** the first template that fits a node, else the model alone */
  deploy: DeployPrefill;
}

/** GET /api/catalog: the models, the model sources, and each node's GPUs */
export interface CatalogView {
  nodes: Array<{ name: string; gpus: string[] }>;
  models: CatalogModel[];
  sources: Array<{
    key: string;
    name: string;
    registry: string;
    state: string;
    tone: ResourceSummary['tone'];
    models: number;
  }>;
}

export interface ResourceDetail {
  summary: ResourceSummary;
  /** the pods its workloads select or own (empty for a pod itself) */
  pods: PodView[];
  conditions: ConditionView[];
  events: EventView[];
  children: ChildView[];
  owners: ChildView[];
  panels: Panel[];
  /** the object as stored, without managedFields or last-applied annotations */
  object: unknown;
  /** the managedFields left out of `object`: who wrote which fields (shown folded) */
  managedFields: unknown[];
}

export interface DashboardInfo {
  cluster: string;
  user: string;
  kinds: KindInfo[];
  /** kinds the credentials may not list: missing from the views, named so the user knows */
  hidden: string[];
  readOnly: boolean;
}

/** the overview stream's messages (Server-Sent Events, event `snapshot` then `changes`) */
export interface SnapshotMessage {
  info: DashboardInfo;
  resources: ResourceSummary[];
}

export interface ChangesMessage {
  upserts: ResourceSummary[];
  removes: string[];
}

export interface ValidationResponse {
  errors: Array<{ field: string; message: string }>;
  warnings: string[];
  /** the object after the defaulting webhook, as it would be stored */
  defaulted?: unknown;
}
