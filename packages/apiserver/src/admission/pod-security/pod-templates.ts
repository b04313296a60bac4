// Where the pod spec sits in each kind PodSecurity evaluates (admission.DefaultPodSpecExtractor), and
// which pod updates are worth evaluating at all.
import type { KubeObject } from '../../types.ts';
import { SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from './checks-baseline.ts';
import type { ContainerView, PodMetaView, PodSpecView } from './pod-view.ts';

export interface PodLike {
  meta: PodMetaView;
  spec: PodSpecView;
}

type Extract = (obj: KubeObject) => PodLike | undefined;

const fromTemplate = (template: unknown): PodLike | undefined => {
  if (template == null || typeof template !== 'object') return undefined;
  const t = template as { metadata?: PodMetaView; spec?: PodSpecView };
  return { meta: t.metadata ?? {}, spec: t.spec ?? {} };
};
const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Record<string, unknown>;

/**
 * The workload kinds that embed a pod template, by storage key (group/plural). PodSecurity only warns
 * and audits these; it enforces on Pods alone. Kinds this server does not serve yet are listed so they
 * are covered the day they are added.
 */
export const POD_TEMPLATE_KINDS: ReadonlyMap<string, Extract> = new Map<string, Extract>([
  ['/replicationcontrollers', (o) => fromTemplate(specOf(o).template)],
  ['/podtemplates', (o) => fromTemplate(o.template)],
  ['apps/replicasets', (o) => fromTemplate(specOf(o).template)],
  ['apps/deployments', (o) => fromTemplate(specOf(o).template)],
  ['apps/statefulsets', (o) => fromTemplate(specOf(o).template)],
  ['apps/daemonsets', (o) => fromTemplate(specOf(o).template)],
  ['batch/jobs', (o) => fromTemplate(specOf(o).template)],
  [
    'batch/cronjobs',
    (o) => fromTemplate((specOf(o).jobTemplate as { spec?: { template?: unknown } } | undefined)?.spec?.template),
  ],
]);

export function podOf(obj: KubeObject): PodLike {
  return { meta: obj.metadata as PodMetaView, spec: (obj.spec ?? {}) as PodSpecView };
}

/**
 * isSignificantPodUpdate: a pod update is evaluated only when it could change what the checks see among
 * the fields a pod update may change: container images, the seccomp annotations, added containers
 * (ephemeral ones included). Label, annotation and status updates of a running pod are never refused.
 */
export function isSignificantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const next = podOf(pod);
  const prev = podOf(old);
  const ann = next.meta.annotations ?? {};
  const oldAnn = prev.meta.annotations ?? {};
  if (ann[SECCOMP_POD_ANNOTATION] !== oldAnn[SECCOMP_POD_ANNOTATION]) return true;
  const containerChanged = (c: ContainerView, o: ContainerView) => {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + (c.name ?? '');
    return c.image !== o.image || ann[key] !== oldAnn[key];
  };
  for (const field of ['containers', 'initContainers'] as const) {
    const now = next.spec[field] ?? [];
    const before = prev.spec[field] ?? [];
    if (now.length !== before.length) return true;
    if (now.some((c, i) => containerChanged(c, before[i]!))) return true;
  }
  const oldEphemeral = prev.spec.ephemeralContainers ?? [];
  for (const c of next.spec.ephemeralContainers ?? []) {
    const o = oldEphemeral.find((e) => e.name === c.name);
    if (!o || containerChanged(c, o)) return true;
  }
  return false;
}
