// Defaulting for built-in kinds: kube's SetDefaults_* functions and declarative (+default) markers for the
// fields users see in `kubectl get -o yaml`, plus the v1 conversion mirrors (serviceAccount/serviceAccountName,
// podIP/podIPs, clusterIP/clusterIPs) that make a stored object look like one read back from kube.
// Go's notion of "unset" is kept: strings default when empty, pointers when absent or null, plain integers
// when zero. Objects are modified in place and returned.

import { child, defPtr, defStr, emptyStr, isObj, list, type Obj, unset } from './default-fields.ts';
import { pod, podTemplate } from './pod-defaults.ts';

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
  // (spec.finalizers is the strategy's, on create: strategies/builtin.ts, not a default the creator owns)
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
