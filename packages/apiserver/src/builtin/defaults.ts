// Defaulting for built-in kinds: kube's SetDefaults_* functions and declarative (+default) markers for the
// fields users see in `kubectl get -o yaml`, plus the v1 conversion mirrors (serviceAccount/serviceAccountName,
// podIP/podIPs, clusterIP/clusterIPs) that make a stored object look like one read back from kube.
// Go's notion of "unset" is kept: strings default when empty, pointers when absent or null, plain integers
// when zero. Objects are modified in place and returned.

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const unset = (v: unknown) => v === undefined || v === null;
const emptyStr = (v: unknown) => unset(v) || v === '';

/** The child object at `key`, created when missing (Go's non-pointer struct fields always exist). */
function child(o: Obj, key: string): Obj {
  if (!isObj(o[key])) o[key] = {};
  return o[key] as Obj;
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function defStr(o: Obj, key: string, value: string): void {
  if (emptyStr(o[key])) o[key] = value;
}

function defPtr(o: Obj, key: string, value: unknown): void {
  if (unset(o[key])) o[key] = value;
}

function defInt(o: Obj, key: string, value: number): void {
  if (unset(o[key]) || o[key] === 0) o[key] = value;
}

// ---- images -------------------------------------------------------------------------------------------

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;

/**
 * The tag kube's parsers.ParseImageName finds: 'latest' when the reference has neither tag nor digest,
 * '' when it has only a digest or does not parse.
 */
export function imageTag(image: string): string {
  if (!image) return '';
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > lastSlash ? named.slice(colon + 1) : '';
  const repo = colon > lastSlash ? named.slice(0, colon) : named;
  const parts = repo.split('/');
  const first = parts[0]!;
  const hasDomain =
    parts.length > 1 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  const path = hasDomain ? parts.slice(1) : parts;
  if (path.length === 0 || !path.every((p) => PATH_COMPONENT.test(p))) return '';
  if (tag && !TAG.test(tag)) return '';
  if (!tag && at < 0) return 'latest';
  return tag;
}

// ---- pod spec -----------------------------------------------------------------------------------------

function probe(p: unknown): void {
  if (!isObj(p)) return;
  defInt(p, 'timeoutSeconds', 1);
  defInt(p, 'periodSeconds', 10);
  defInt(p, 'successThreshold', 1);
  defInt(p, 'failureThreshold', 3);
  handler(p);
  if (isObj(p.grpc)) defPtr(p.grpc, 'service', '');
}

/** HTTPGetAction defaults, for probes and lifecycle hooks. */
function handler(h: unknown): void {
  if (!isObj(h) || !isObj(h.httpGet)) return;
  defStr(h.httpGet, 'path', '/');
  defStr(h.httpGet, 'scheme', 'HTTP');
}

function fieldRef(o: unknown): void {
  if (isObj(o) && isObj(o.fieldRef)) defStr(o.fieldRef, 'apiVersion', 'v1');
}

function container(c: Obj, isPod: boolean, hostNetwork: boolean): void {
  if (emptyStr(c.imagePullPolicy))
    c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  defStr(c, 'terminationMessagePath', '/dev/termination-log');
  defStr(c, 'terminationMessagePolicy', 'File');
  for (const port of list(c.ports)) {
    defStr(port, 'protocol', 'TCP');
    if (isPod && hostNetwork && (unset(port.hostPort) || port.hostPort === 0)) port.hostPort = port.containerPort;
  }
  for (const env of list(c.env)) fieldRef(env.valueFrom);
  probe(c.livenessProbe);
  probe(c.readinessProbe);
  probe(c.startupProbe);
  if (isObj(c.lifecycle)) {
    handler(c.lifecycle.postStart);
    handler(c.lifecycle.preStop);
  }
  // requests default to limits on Pods (not on templates)
  if (isPod && isObj(c.resources) && isObj(c.resources.limits)) {
    const requests = child(c.resources, 'requests');
    for (const [k, v] of Object.entries(c.resources.limits)) if (!(k in requests)) requests[k] = v;
  }
}

function volume(v: Obj): void {
  if (Object.keys(v).every((k) => k === 'name')) v.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected'])
    if (isObj(v[key])) defPtr(v[key], 'defaultMode', 420);
  if (isObj(v.hostPath)) defPtr(v.hostPath, 'type', '');
  if (isObj(v.downwardAPI)) for (const item of list(v.downwardAPI.items)) fieldRef(item);
  if (isObj(v.projected)) {
    for (const src of list(v.projected.sources)) {
      if (isObj(src.serviceAccountToken)) defPtr(src.serviceAccountToken, 'expirationSeconds', 3600);
      if (isObj(src.downwardAPI)) for (const item of list(src.downwardAPI.items)) fieldRef(item);
    }
  }
  const claimSpec =
    isObj(v.ephemeral) && isObj(v.ephemeral.volumeClaimTemplate) ? v.ephemeral.volumeClaimTemplate.spec : undefined;
  if (isObj(claimSpec)) defPtr(claimSpec, 'volumeMode', 'Filesystem');
}

/** SetDefaults_PodSpec and everything nested in it; `isPod` adds SetDefaults_Pod's extras. */
function podSpec(spec: Obj, isPod: boolean): void {
  defStr(spec, 'dnsPolicy', 'ClusterFirst');
  defStr(spec, 'restartPolicy', 'Always');
  defPtr(spec, 'securityContext', {});
  defPtr(spec, 'terminationGracePeriodSeconds', 30);
  defStr(spec, 'schedulerName', 'default-scheduler');
  // v1 keeps the deprecated serviceAccount field as a mirror of serviceAccountName
  if (emptyStr(spec.serviceAccountName) && !emptyStr(spec.serviceAccount))
    spec.serviceAccountName = spec.serviceAccount;
  if (!emptyStr(spec.serviceAccountName)) spec.serviceAccount = spec.serviceAccountName;
  const hostNetwork = spec.hostNetwork === true;
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) container(c, isPod, hostNetwork);
  for (const c of list(spec.ephemeralContainers)) container(c, false, false);
  for (const v of list(spec.volumes)) volume(v);
  if (isPod) defPtr(spec, 'enableServiceLinks', true);
}

function podTemplate(template: unknown): void {
  if (isObj(template)) podSpec(child(template, 'spec'), false);
}

function pod(o: Obj): void {
  podSpec(child(o, 'spec'), true);
  const status = o.status;
  if (isObj(status)) {
    const ips = list(status.podIPs);
    if (ips.length === 0 && !emptyStr(status.podIP)) status.podIPs = [{ ip: status.podIP }];
    else if (ips.length > 0 && emptyStr(status.podIP)) status.podIP = ips[0]!.ip;
  }
}

/**
 * What kube-apiserver's default admission chain adds to a new Pod (ServiceAccount, Priority and
 * DefaultTolerationSeconds plugins). Call on create only. The service-account token volume is not added.
 */
export function applyPodAdmissionDefaults(o: Obj): Obj {
  const spec = child(o, 'spec');
  defStr(spec, 'serviceAccountName', 'default');
  spec.serviceAccount = spec.serviceAccountName;
  // without a priority class (and no global default class) kube assigns priority 0; classes are resolved by the caller
  if (emptyStr(spec.priorityClassName)) {
    defPtr(spec, 'priority', 0);
    defPtr(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  }
  const tolerations = list(spec.tolerations);
  const tolerates = (key: string) =>
    tolerations.some((t) => (t.key === key || emptyStr(t.key)) && (t.effect === 'NoExecute' || emptyStr(t.effect)));
  const missing = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'].filter((key) => !tolerates(key));
  for (const key of missing) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  spec.tolerations = tolerations;
  return o;
}

// ---- core ---------------------------------------------------------------------------------------------

function service(o: Obj): void {
  const spec = child(o, 'spec');
  defStr(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout =
      isObj(spec.sessionAffinityConfig) && isObj(spec.sessionAffinityConfig.clientIP)
        ? spec.sessionAffinityConfig.clientIP.timeoutSeconds
        : undefined;
    if (unset(timeout)) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  defStr(spec, 'type', 'ClusterIP');
  for (const p of list(spec.ports)) {
    defStr(p, 'protocol', 'TCP');
    if (unset(p.targetPort) || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const type = spec.type;
  const externalIPs = Array.isArray(spec.externalIPs) ? spec.externalIPs : [];
  if (type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && externalIPs.length > 0))
    defStr(spec, 'externalTrafficPolicy', 'Cluster');
  if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')
    defPtr(spec, 'internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer') defPtr(spec, 'allocateLoadBalancerNodePorts', true);
  if (type === 'ExternalName') return;
  // the service registry's IP-family fields (single-stack IPv4 cluster); allocation itself is the caller's
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (ips.length === 0 && !emptyStr(spec.clusterIP)) spec.clusterIPs = [spec.clusterIP];
  else if (ips.length > 0 && emptyStr(spec.clusterIP)) spec.clusterIP = ips[0];
  defPtr(spec, 'ipFamilyPolicy', 'SingleStack');
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) {
    spec.ipFamilies = [typeof spec.clusterIP === 'string' && spec.clusterIP.includes(':') ? 'IPv6' : 'IPv4'];
  }
}

function persistentVolumeClaim(o: Obj): void {
  defPtr(child(o, 'spec'), 'volumeMode', 'Filesystem');
  defStr(child(o, 'status'), 'phase', 'Pending');
}

function namespace(o: Obj): void {
  const meta = child(o, 'metadata');
  if (typeof meta.name === 'string' && meta.name) child(meta, 'labels')['kubernetes.io/metadata.name'] = meta.name;
  const spec = child(o, 'spec');
  if (!Array.isArray(spec.finalizers)) spec.finalizers = ['kubernetes'];
  defStr(child(o, 'status'), 'phase', 'Active');
}

function replicationController(o: Obj): void {
  const spec = child(o, 'spec');
  const labels = isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  if (isObj(labels)) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = child(o, 'metadata');
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  defPtr(spec, 'replicas', 1);
  podTemplate(spec.template);
}

// ---- apps, batch --------------------------------------------------------------------------------------

function deployment(o: Obj): void {
  const spec = child(o, 'spec');
  defPtr(spec, 'replicas', 1);
  const strategy = child(spec, 'strategy');
  defStr(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    defPtr(ru, 'maxUnavailable', '25%');
    defPtr(ru, 'maxSurge', '25%');
  }
  defPtr(spec, 'revisionHistoryLimit', 10);
  defPtr(spec, 'progressDeadlineSeconds', 600);
  podTemplate(spec.template);
}

function replicaSet(o: Obj): void {
  const spec = child(o, 'spec');
  defPtr(spec, 'replicas', 1);
  podTemplate(spec.template);
}

function daemonSet(o: Obj): void {
  const spec = child(o, 'spec');
  const strategy = child(spec, 'updateStrategy');
  defStr(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    defPtr(ru, 'maxUnavailable', 1);
    defPtr(ru, 'maxSurge', 0);
  }
  defPtr(spec, 'revisionHistoryLimit', 10);
  podTemplate(spec.template);
}

function statefulSet(o: Obj): void {
  const spec = child(o, 'spec');
  defStr(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  if (emptyStr(strategy.type)) {
    strategy.type = 'RollingUpdate';
    defPtr(strategy, 'rollingUpdate', {});
  }
  if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate))
    defPtr(strategy.rollingUpdate, 'partition', 0);
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  defStr(retention, 'whenDeleted', 'Retain');
  defStr(retention, 'whenScaled', 'Retain');
  defPtr(spec, 'replicas', 1);
  defPtr(spec, 'revisionHistoryLimit', 10);
  podTemplate(spec.template);
  for (const claim of list(spec.volumeClaimTemplates)) persistentVolumeClaim(claim);
}

function job(o: Obj): void {
  const spec = child(o, 'spec');
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  defPtr(spec, 'parallelism', 1);
  defPtr(spec, 'backoffLimit', unset(spec.backoffLimitPerIndex) ? 6 : 2147483647);
  const templateLabels =
    isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  const meta = child(o, 'metadata');
  if (isObj(templateLabels) && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0))
    meta.labels = { ...templateLabels };
  defPtr(spec, 'completionMode', 'NonIndexed');
  defPtr(spec, 'suspend', false);
  if (isObj(spec.podFailurePolicy)) {
    for (const rule of list(spec.podFailurePolicy.rules))
      for (const pattern of list(rule.onPodConditions)) defStr(pattern, 'status', 'True');
  }
  defPtr(spec, 'podReplacementPolicy', isObj(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed');
  podTemplate(spec.template);
}

function cronJob(o: Obj): void {
  const spec = child(o, 'spec');
  defStr(spec, 'concurrencyPolicy', 'Allow');
  defPtr(spec, 'suspend', false);
  defPtr(spec, 'successfulJobsHistoryLimit', 3);
  defPtr(spec, 'failedJobsHistoryLimit', 1);
  // the job template's own fields are not defaulted (SetDefaults_Job runs on Jobs only), its pod template is
  const jobSpec = isObj(spec.jobTemplate) ? spec.jobTemplate.spec : undefined;
  if (isObj(jobSpec)) podTemplate(jobSpec.template);
}

// ---- other groups -------------------------------------------------------------------------------------

function scalingRules(rules: unknown, defaults: Obj): Obj {
  if (!isObj(rules)) return structuredClone(defaults);
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies'])
    if (unset(rules[key]) && key in defaults) rules[key] = structuredClone(defaults[key]);
  return rules;
}

function hpaV2(o: Obj): void {
  const spec = child(o, 'spec');
  defPtr(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ];
  }
  if (isObj(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    // scale-down stabilisation comes from a controller flag, so kube leaves it unset
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, {
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    });
  }
}

function webhookConfiguration(o: Obj, mutating: boolean): void {
  for (const w of list(o.webhooks)) {
    defPtr(w, 'failurePolicy', 'Fail');
    defPtr(w, 'matchPolicy', 'Equivalent');
    defPtr(w, 'namespaceSelector', {});
    defPtr(w, 'objectSelector', {});
    defPtr(w, 'timeoutSeconds', 10);
    if (mutating) defPtr(w, 'reinvocationPolicy', 'Never');
    for (const rule of list(w.rules)) defPtr(rule, 'scope', '*');
    if (isObj(w.clientConfig) && isObj(w.clientConfig.service)) defPtr(w.clientConfig.service, 'port', 443);
  }
}

function customResourceDefinition(o: Obj): void {
  const spec = child(o, 'spec');
  const names = child(spec, 'names');
  if (emptyStr(names.singular) && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
  if (emptyStr(names.listKind) && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  defPtr(spec, 'conversion', { strategy: 'None' });
  const conversion = spec.conversion as Obj;
  const service =
    isObj(conversion.webhook) && isObj(conversion.webhook.clientConfig)
      ? conversion.webhook.clientConfig.service
      : undefined;
  if (isObj(service)) defPtr(service, 'port', 443);
  const status = child(o, 'status');
  if (!Array.isArray(status.storedVersions) || status.storedVersions.length === 0) {
    const storage = list(spec.versions).find((v) => v.storage === true);
    if (storage) status.storedVersions = [storage.name];
  }
}

function networkPolicy(o: Obj): void {
  const spec = child(o, 'spec');
  for (const rule of [...list(spec.ingress), ...list(spec.egress)])
    for (const port of list(rule.ports)) defPtr(port, 'protocol', 'TCP');
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

function roleBinding(o: Obj): void {
  defStr(child(o, 'roleRef'), 'apiGroup', 'rbac.authorization.k8s.io');
  for (const s of list(o.subjects))
    if (emptyStr(s.apiGroup) && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = 'rbac.authorization.k8s.io';
}

const DEFAULTERS: Record<string, (o: Obj) => void> = {
  '/Pod': pod,
  '/PodTemplate': (o) => podTemplate(o.template),
  '/ReplicationController': replicationController,
  '/Service': service,
  '/Secret': (o) => defStr(o, 'type', 'Opaque'),
  '/PersistentVolumeClaim': persistentVolumeClaim,
  '/PersistentVolume': (o) => {
    const spec = child(o, 'spec');
    defStr(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    defPtr(spec, 'volumeMode', 'Filesystem');
    defStr(child(o, 'status'), 'phase', 'Pending');
  },
  '/Namespace': namespace,
  '/Endpoints': (o) => {
    for (const ss of list(o.subsets)) for (const p of list(ss.ports)) defStr(p, 'protocol', 'TCP');
  },
  'apps/Deployment': deployment,
  'apps/ReplicaSet': replicaSet,
  'apps/DaemonSet': daemonSet,
  'apps/StatefulSet': statefulSet,
  'batch/Job': job,
  'batch/CronJob': cronJob,
  'autoscaling/HorizontalPodAutoscaler': (o) => defPtr(child(o, 'spec'), 'minReplicas', 1),
  'networking.k8s.io/NetworkPolicy': networkPolicy,
  'storage.k8s.io/StorageClass': (o) => {
    defPtr(o, 'reclaimPolicy', 'Delete');
    defPtr(o, 'volumeBindingMode', 'Immediate');
  },
  'scheduling.k8s.io/PriorityClass': (o) => defPtr(o, 'preemptionPolicy', 'PreemptLowerPriority'),
  'rbac.authorization.k8s.io/RoleBinding': roleBinding,
  'rbac.authorization.k8s.io/ClusterRoleBinding': roleBinding,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': (o) => webhookConfiguration(o, true),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': (o) => webhookConfiguration(o, false),
  'apiextensions.k8s.io/CustomResourceDefinition': customResourceDefinition,
};

/**
 * Applies kube's defaults for a built-in kind in place and returns the object. Kinds kube does not default
 * (ConfigMap, ServiceAccount, Event, Lease, PodDisruptionBudget, Role, ...) are returned unchanged.
 */
export function applyBuiltinDefaults<T>(group: string, version: string, kind: string, obj: T): T {
  if (!isObj(obj)) return obj;
  if (group === 'autoscaling' && kind === 'HorizontalPodAutoscaler' && version !== 'v1') hpaV2(obj);
  else DEFAULTERS[`${group}/${kind}`]?.(obj);
  return obj;
}
