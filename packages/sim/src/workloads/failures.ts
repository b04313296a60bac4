// Failure injection: the `sim.modelplane.io/fail` annotation on a pod (or its template) names a failure
// the simulators act out with the container states, events, messages and log lines a real cluster
// produces, so the engine's health inspectors can be exercised end to end.

import { FAIL_ANNOTATION, FAIL_CONTAINER_ANNOTATION, LOGS_ANNOTATION, type Pod } from './kinds.ts';

export const FAILURE_MODES = [
  'ImagePullBackOff',
  'ErrImagePull-auth',
  'OOMKilled',
  'CrashLoopBackOff',
  'Unschedulable',
  'DiskFull',
] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

export interface PodFailure {
  mode: FailureMode | undefined;
  /** the one container that fails (annotation `sim.modelplane.io/fail-container`); undefined = every app container */
  container: string | undefined;
  /** an annotation value that names no known mode, for a warning */
  invalid: string | undefined;
}

/**
 * The same failure named by a container's env var, for pods whose template the user does not write (an
 * operator's Jobs and predictors pass a user's env through, as AIM's own AIM_DEBUG_SIMULATE_* variables)
 */
export const FAIL_ENV = 'MODELPLANE_SIM_FAIL';

function envFailure(pod: Pod): string | undefined {
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const v = c.env?.find((e) => e.name === FAIL_ENV)?.value?.trim();
    if (v) return v;
  }
  return undefined;
}

export function podFailure(pod: Pod): PodFailure {
  const annotations = pod.metadata.annotations ?? {};
  const raw = annotations[FAIL_ANNOTATION]?.trim() || envFailure(pod);
  const container = annotations[FAIL_CONTAINER_ANNOTATION]?.trim() || undefined;
  if (!raw) return { mode: undefined, container, invalid: undefined };
  const mode = FAILURE_MODES.find((m) => m === raw);
  return { mode, container, invalid: mode ? undefined : raw };
}

export function invalidFailureMessage(pod: Pod, value: string): string {
  return `pod ${pod.metadata.namespace}/${pod.metadata.name}: annotation ${FAIL_ANNOTATION}="${value}" is not one of ${FAILURE_MODES.join(', ')}; ignored`;
}

/** the failure a given container acts out (pull and run failures; Unschedulable is the scheduler's) */
export function containerFailure(f: PodFailure, container: string, init: boolean): FailureMode | undefined {
  if (!f.mode || f.mode === 'Unschedulable') return undefined;
  if (f.container !== undefined) return f.container === container ? f.mode : undefined;
  return init ? undefined : f.mode;
}

export function isPullFailure(mode: FailureMode | undefined): boolean {
  return mode === 'ImagePullBackOff' || mode === 'ErrImagePull-auth';
}

export function isRunFailure(mode: FailureMode | undefined): boolean {
  return mode === 'OOMKilled' || mode === 'CrashLoopBackOff' || mode === 'DiskFull';
}

/** the custom log lines of `sim.modelplane.io/logs` */
export function customLogLines(pod: Pod): string[] {
  const raw = pod.metadata.annotations?.[LOGS_ANNOTATION];
  if (!raw) return [];
  const lines = raw.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `nginx` → `docker.io/library/nginx:latest`, as container runtimes report image references */
export function normalizeImage(image: string): string {
  let ref = image.trim();
  const firstSlash = ref.indexOf('/');
  const first = firstSlash < 0 ? '' : ref.slice(0, firstSlash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  if (!hasRegistry) ref = firstSlash < 0 ? `docker.io/library/${ref}` : `docker.io/${ref}`;
  const lastSegment = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastSegment.includes(':') && !ref.includes('@')) ref = `${ref}:latest`;
  return ref;
}

/** the container runtime's error for a failed pull, as it appears in events and `state.waiting.message` */
export function pullErrorMessage(mode: 'ImagePullBackOff' | 'ErrImagePull-auth', image: string): string {
  const ref = normalizeImage(image);
  if (mode === 'ErrImagePull-auth') {
    return `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": pull access denied, repository does not exist or may require authorization: server message: unauthorized: authentication required`;
  }
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}

export interface Termination {
  reason: 'OOMKilled' | 'Error';
  exitCode: number;
}

export function termination(mode: 'OOMKilled' | 'CrashLoopBackOff' | 'DiskFull'): Termination {
  return mode === 'OOMKilled' ? { reason: 'OOMKilled', exitCode: 137 } : { reason: 'Error', exitCode: 1 };
}
