// Defaulting of pod specs, wherever they appear (Pods and every pod template), and what kube-apiserver's
// admission chain adds to a new Pod. The rules are kube's SetDefaults_*; see defaults.ts.
import { child, defInt, defPtr, defStr, emptyStr, isObj, list, type Obj, unset } from './default-fields.ts';

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
  // ResourceRequirements is a struct, not a pointer: kube always writes it, `{}` when empty
  defPtr(c, 'resources', {});
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

export function podTemplate(template: unknown): void {
  if (!isObj(template)) return;
  // the template's ObjectMeta is a struct and its creationTimestamp a struct too: kube writes `null`
  const meta = child(template, 'metadata');
  if (!('creationTimestamp' in meta)) meta.creationTimestamp = null;
  podSpec(child(template, 'spec'), false);
}

export function pod(o: Obj): void {
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
