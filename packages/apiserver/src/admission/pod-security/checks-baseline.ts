// The Baseline checks of the Pod Security Standards as k8s.io/pod-security-admission v0.32 runs them:
// the same allowed values per policy version, the same reason and detail text (users compare these
// messages with real clusters). Each function takes the pod metadata and spec and returns a violation or
// undefined; the registry (evaluator.ts) picks the revision for the policy version being evaluated.
import { goQuote } from '../../validation/field-errors.ts';
import {
  allContainers,
  type CheckFn,
  type ContainerView,
  containerName,
  containersPhrase,
  joinQuote,
  type PodSpecView,
  pluralize,
  sortedUnique,
  type Violation,
} from './pod-view.ts';

export interface VersionedCheck {
  /** first policy version (1.<minor>) this revision applies to */
  minor: number;
  check: CheckFn;
  /** Baseline check ids this (Restricted) revision supersedes when Restricted is evaluated */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** revisions in increasing `minor` order */
  versions: readonly VersionedCheck[];
}

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

const appArmorProfile: CheckFn = (meta, spec) => {
  const allowedType = (t: string | undefined) => t === 'RuntimeDefault' || t === 'Localhost';
  const setters: string[] = [];
  const badTypes: string[] = [];
  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile != null && !allowedType(podProfile.type)) {
    setters.push('pod');
    badTypes.push(podProfile.type ?? '');
  }
  const bad = allContainers(spec).filter(
    (c) => c.securityContext?.appArmorProfile != null && !allowedType(c.securityContext.appArmorProfile.type),
  );
  for (const c of bad) badTypes.push(c.securityContext!.appArmorProfile!.type ?? '');
  if (bad.length > 0) setters.push(containersPhrase(bad.map(containerName)));
  const allowedAnnotation = (v: string) => v === '' || v === 'runtime/default' || v.startsWith('localhost/');
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAnnotation(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort();
  if (annotations.length > 0) setters.push(pluralize('annotation', 'annotations', annotations.length));
  if (setters.length === 0) return undefined;
  const values = [...sortedUnique(badTypes), ...annotations];
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
};

const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

const capabilitiesBaseline: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const added: string[] = [];
  for (const c of allContainers(spec)) {
    const extra = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (extra.length === 0) continue;
    bad.push(containerName(c));
    added.push(...extra);
  }
  if (bad.length === 0) return undefined;
  return {
    reason: 'non-default capabilities',
    detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedUnique(added))} in securityContext.capabilities.add`,
  };
};

const hostNamespaces: CheckFn = (_meta, spec) => {
  const used = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((f) => spec[f] === true);
  return used.length === 0 ? undefined : { reason: 'host namespaces', detail: sortedUnique(used).join(', ') };
};

const hostPathVolumes: CheckFn = (_meta, spec) => {
  const names = (spec.volumes ?? []).filter((v) => v.hostPath != null).map((v) => v.name ?? '');
  return names.length === 0
    ? undefined
    : { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` };
};

const hostPorts: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(spec)) {
    const used = (c.ports ?? []).map((p) => p.hostPort ?? 0).filter((p) => p !== 0);
    if (used.length === 0) continue;
    bad.push(containerName(c));
    ports.push(...used.map(String));
  }
  if (bad.length === 0) return undefined;
  const unique = sortedUnique(ports);
  return {
    reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', unique.length)} ${unique.join(', ')}`,
  };
};

const privileged: CheckFn = (_meta, spec) => {
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.privileged === true)
    .map(containerName);
  return bad.length === 0
    ? undefined
    : { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
};

const procMount: CheckFn = (_meta, spec) => {
  const bad: ContainerView[] = allContainers(spec).filter(
    (c) => c.securityContext?.procMount != null && c.securityContext.procMount !== 'Default',
  );
  if (bad.length === 0) return undefined;
  const types = sortedUnique(bad.map((c) => c.securityContext!.procMount!));
  return {
    reason: 'procMount',
    detail: `${containersPhrase(bad.map(containerName))} must not set securityContext.procMount to ${joinQuote(types)}`,
  };
};

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckFn {
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: { type?: string; user?: string; role?: string }) => {
      let ok = true;
      if (!allowedTypes.has(o.type ?? '')) {
        ok = false;
        badTypes.push(o.type ?? '');
      }
      if (o.user) {
        ok = false;
        setUser = true;
      }
      if (o.role) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    const podOptions = spec.securityContext?.seLinuxOptions;
    if (podOptions != null && !valid(podOptions)) setters.push('pod');
    const bad = allContainers(spec).filter(
      (c) => c.securityContext?.seLinuxOptions != null && !valid(c.securityContext.seLinuxOptions),
    );
    if (bad.length > 0) setters.push(containersPhrase(bad.map(containerName)));
    if (setters.length === 0) return undefined;
    const what: string[] = [];
    const types = sortedUnique(badTypes);
    if (types.length > 0) what.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) what.push('user may not be set');
    if (setRole) what.push('role may not be set');
    return {
      reason: 'seLinuxOptions',
      detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${what.join('; ')}`,
    };
  };
}

const SELINUX_TYPES_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const SELINUX_TYPES_1_31 = new Set([...SELINUX_TYPES_1_0, 'container_engine_t']);

export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

/** before policy v1.19 seccomp was set through the alpha annotations */
const seccompAnnotations: CheckFn = (meta, spec) => {
  const valid = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const annotations = meta.annotations ?? {};
  const bad: string[] = [];
  const check = (key: string) => {
    const v = annotations[key];
    if (v !== undefined && !valid(v)) bad.push(`${key}=${goQuote(v)}`);
  };
  check(SECCOMP_POD_ANNOTATION);
  for (const c of allContainers(spec)) check(SECCOMP_CONTAINER_ANNOTATION_PREFIX + containerName(c));
  if (bad.length === 0) return undefined;
  const unique = sortedUnique(bad);
  return {
    reason: 'seccompProfile',
    detail: `forbidden ${pluralize('annotation', 'annotations', unique.length)} ${unique.join(', ')}`,
  };
};

export const validSeccompType = (t: string | undefined) => t === 'RuntimeDefault' || t === 'Localhost';

/** Pod or containers that explicitly set seccompProfile.type to something else than RuntimeDefault or Localhost. */
export function explicitSeccompViolation(spec: PodSpecView): Violation | undefined {
  const setters: string[] = [];
  const badTypes: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile != null && !validSeccompType(podProfile.type)) {
    setters.push('pod');
    badTypes.push(podProfile.type ?? '');
  }
  const bad = allContainers(spec).filter(
    (c) => c.securityContext?.seccompProfile != null && !validSeccompType(c.securityContext.seccompProfile.type),
  );
  for (const c of bad) badTypes.push(c.securityContext!.seccompProfile!.type ?? '');
  if (bad.length > 0) setters.push(containersPhrase(bad.map(containerName)));
  if (setters.length === 0) return undefined;
  return {
    reason: 'seccompProfile',
    detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(badTypes))}`,
  };
}

function sysctls(allowed: ReadonlySet<string>): CheckFn {
  return (_meta, spec) => {
    const bad = (spec.securityContext?.sysctls ?? []).map((s) => s.name ?? '').filter((n) => !allowed.has(n));
    return bad.length === 0 ? undefined : { reason: 'forbidden sysctls', detail: bad.join(', ') };
  };
}

const SYSCTLS_1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

const windowsHostProcess: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.windowsOptions?.hostProcess === true)
    .map(containerName);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return {
    reason: 'hostProcess',
    detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`,
  };
};

export const CHECK_HOST_PATH_VOLUMES = 'hostPathVolumes';
export const CHECK_CAPABILITIES_BASELINE = 'capabilities_baseline';
export const CHECK_SECCOMP_BASELINE = 'seccompProfile_baseline';

export const BASELINE_CHECKS: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minor: 0, check: appArmorProfile }] },
  { id: CHECK_CAPABILITIES_BASELINE, level: 'baseline', versions: [{ minor: 0, check: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minor: 0, check: hostNamespaces }] },
  { id: CHECK_HOST_PATH_VOLUMES, level: 'baseline', versions: [{ minor: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minor: 0, check: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ minor: 0, check: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minor: 0, check: procMount }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minor: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minor: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: CHECK_SECCOMP_BASELINE,
    level: 'baseline',
    versions: [
      { minor: 0, check: seccompAnnotations },
      { minor: 19, check: (_meta, spec) => explicitSeccompViolation(spec) },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minor: 0, check: sysctls(new Set(SYSCTLS_1_0)) },
      { minor: 27, check: sysctls(new Set(SYSCTLS_1_27)) },
      { minor: 29, check: sysctls(new Set(SYSCTLS_1_29)) },
      { minor: 32, check: sysctls(new Set(SYSCTLS_1_32)) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minor: 0, check: windowsHostProcess }] },
];
