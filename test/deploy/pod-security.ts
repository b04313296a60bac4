// The Pod Security Standards "restricted" profile (kubernetes.io/docs/concepts/security/pod-security-standards),
// checked on a pod spec. The embedded API server has no PodSecurity admission, so the chart test checks the
// rendered pod templates with this instead; each message names the field, as PodSecurity's own do.

type Obj = Record<string, any>;

const RESTRICTED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

/** every violation of the restricted profile (baseline included) in `spec`; empty when compliant */
export function restrictedViolations(spec: Obj): string[] {
  const out: string[] = [];
  const pod = spec.securityContext ?? {};
  for (const host of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (spec[host] === true) out.push(`spec.${host}: must not be true`);
  for (const v of spec.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (!type || !RESTRICTED_VOLUME_TYPES.has(type)) out.push(`spec.volumes[${v.name}]: volume type ${type} is not allowed`);
  }
  if (pod.runAsUser === 0) out.push('spec.securityContext.runAsUser: must not be 0');
  if (pod.seccompProfile?.type === 'Unconfined') out.push('spec.securityContext.seccompProfile.type: must not be Unconfined');
  for (const s of pod.sysctls ?? []) out.push(`spec.securityContext.sysctls: ${s.name} is not allowed`);
  const containers: Array<[string, Obj]> = [
    ...(spec.initContainers ?? []).map((c: Obj) => [`spec.initContainers[${c.name}]`, c] as [string, Obj]),
    ...(spec.containers ?? []).map((c: Obj) => [`spec.containers[${c.name}]`, c] as [string, Obj]),
  ];
  for (const [path, c] of containers) {
    const sc = c.securityContext ?? {};
    if (sc.privileged === true) out.push(`${path}.securityContext.privileged: must not be true`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${path}.securityContext.allowPrivilegeEscalation: must be false`);
    if (!(sc.runAsNonRoot === true || (pod.runAsNonRoot === true && sc.runAsNonRoot !== false))) out.push(`${path}.securityContext.runAsNonRoot: must be true (here or on the pod)`);
    if (sc.runAsUser === 0) out.push(`${path}.securityContext.runAsUser: must not be 0`);
    const seccomp = sc.seccompProfile?.type ?? pod.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') out.push(`${path}.securityContext.seccompProfile.type: must be RuntimeDefault or Localhost (here or on the pod)`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) out.push(`${path}.securityContext.capabilities.drop: must include ALL`);
    for (const cap of sc.capabilities?.add ?? []) {
      if (cap !== 'NET_BIND_SERVICE') out.push(`${path}.securityContext.capabilities.add: ${cap} is not allowed${BASELINE_CAPABILITIES.has(cap) ? ' under restricted' : ''}`);
    }
    if (sc.procMount !== undefined && sc.procMount !== 'Default') out.push(`${path}.securityContext.procMount: must be Default`);
    for (const p of c.ports ?? []) if (p.hostPort) out.push(`${path}.ports[${p.name ?? p.containerPort}].hostPort: must not be set`);
  }
  return out;
}
