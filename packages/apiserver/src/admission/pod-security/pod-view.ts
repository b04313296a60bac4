// The parts of a pod (or pod template) the PodSecurity checks read, typed over the JSON the API server
// stores, plus the wording helpers every check message uses. An absent field and an explicit null both
// stand for Go's nil, so the checks compare with `== null`.

export interface SecurityContextView {
  privileged?: boolean | null;
  allowPrivilegeEscalation?: boolean | null;
  runAsNonRoot?: boolean | null;
  runAsUser?: number | null;
  procMount?: string | null;
  capabilities?: { add?: string[] | null; drop?: string[] | null } | null;
  seccompProfile?: { type?: string } | null;
  appArmorProfile?: { type?: string } | null;
  seLinuxOptions?: { type?: string; user?: string; role?: string } | null;
  windowsOptions?: { hostProcess?: boolean | null } | null;
}

export interface PodSecurityContextView
  extends Omit<SecurityContextView, 'privileged' | 'allowPrivilegeEscalation' | 'procMount' | 'capabilities'> {
  sysctls?: Array<{ name?: string }> | null;
}

export interface ContainerView {
  name?: string;
  image?: string;
  ports?: Array<{ hostPort?: number | null }> | null;
  securityContext?: SecurityContextView | null;
}

export interface PodSpecView {
  containers?: ContainerView[] | null;
  initContainers?: ContainerView[] | null;
  ephemeralContainers?: ContainerView[] | null;
  volumes?: Array<Record<string, unknown> & { name?: string }> | null;
  hostNetwork?: boolean | null;
  hostPID?: boolean | null;
  hostIPC?: boolean | null;
  securityContext?: PodSecurityContextView | null;
  os?: { name?: string } | null;
}

export interface PodMetaView {
  name?: string;
  annotations?: Record<string, string> | null;
}

/** What a check says about a pod that breaks it: a short reason, and the detail naming what broke it. */
export interface Violation {
  reason: string;
  detail: string;
}

/** A check's verdict: undefined when the pod passes. */
export type CheckFn = (meta: PodMetaView, spec: PodSpecView) => Violation | undefined;

/** init containers, then containers, then ephemeral containers: the order names appear in messages */
export function allContainers(spec: PodSpecView): ContainerView[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

export function containerName(c: ContainerView): string {
  return c.name ?? '';
}

/** Go's joinQuote: `"a", "b"`, no escaping */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** sets.String.List(): unique and sorted by code unit, like Go's byte-wise string order for these values */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** `container "a"` / `containers "a", "b"` */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** From policy v1.25 the Linux-only restricted checks pass pods that declare `spec.os.name: windows`. */
export function isWindowsPod(spec: PodSpecView): boolean {
  return spec.os?.name === 'windows';
}
