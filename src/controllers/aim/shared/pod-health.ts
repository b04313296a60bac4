// The pods an AIM object waits for (a download, check-size or discovery Job's, a predictor's), judged by the
// engine's pod inspectors, as a component condition that names the pod, what is wrong and what to do
// (docs/aim.md, "Every wait names its cause"). Only a problem is reported: pods that are being created,
// starting or running are already covered by the Job's or the InferenceService's own condition.
import { CategorizedError, categorize } from '../../../engine/errors.ts';
import type { ComponentHealth, HealthReport } from '../../../engine/health.ts';
import type { MaybeHealth } from '../../../engine/types.ts';

/** where the user fixes what the pods need: the fields named in the advice */
export interface PodFixFields {
  /** e.g. `spec.imagePullSecrets of AIMModel ns/name` */
  pullSecrets: string;
  /** e.g. `spec.resources of AIMService ns/name` */
  resources: string;
}

/** a registry host from a container runtime's pull error (`failed to pull … image "host/repo:tag"`) */
function registryOf(message: string): string | undefined {
  const image = /image "([^"]+)"/.exec(message)?.[1];
  if (!image) return undefined;
  const first = image.split('/')[0] ?? '';
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

/** what to do about a pod problem, by the inspector's reason */
export function podAdvice(reason: string, message: string, fix: PodFixFields): string {
  switch (reason) {
    case 'ImagePullAuthFailure': {
      const registry = registryOf(message);
      return `the registry refused the pull: create a Secret of type kubernetes.io/dockerconfigjson with credentials${registry ? ` for ${registry}` : ''} and list it in ${fix.pullSecrets} (or the runtime config's imagePullSecrets); the pull is retried by the kubelet`;
    }
    case 'ImageNotFound':
    case 'InvalidImageName':
      return 'the image does not exist: check the image reference';
    case 'ImagePullBackOff':
      return 'the registry could not be reached; the kubelet keeps retrying';
    case 'FailedScheduling':
      return /persistentvolumeclaim|unbound|storageclass/i.test(message)
        ? "its PersistentVolumeClaim is not bound: check that the StorageClass exists (storage.defaultStorageClassName of the runtime config, or the object's storageClassName) and can provision"
        : `no node can run it: add nodes with the requested resources, or lower the request (${fix.resources})`;
    case 'FailedMount':
    case 'FailedAttachVolume':
      return 'a volume could not be mounted: check the PersistentVolumeClaim and its StorageClass';
    case 'PodOOMKilled':
      return `raise the memory limit (${fix.resources})`;
    case 'StorageFull':
      return 'the volume is full: raise storage.pvcHeadroomPercent in the runtime config, or spec.size';
    case 'ContainerConfigError':
      return 'a Secret or ConfigMap the pod references is missing: create it';
    default:
      return "see the pod's events and logs (kubectl describe pod, kubectl logs)";
  }
}

const QUIET = new Set([
  'PodsReady',
  'PodSucceeded',
  'PodsStarting',
  'PodsPending',
  'NoPods',
  'Pulling',
  'PodsProgressing',
]);

/** the scheduler holds the pod until its PersistentVolumeClaim is bound (Immediate binding) */
function waitsForClaim(report: HealthReport): boolean {
  return report.reason === 'FailedScheduling' && /unbound immediate persistentvolumeclaims/i.test(report.message ?? '');
}

/** the component for a pod problem (undefined when the pods are fine or merely on their way) */
export function podProblem(component: string, report: HealthReport | undefined, fix: PodFixFields): MaybeHealth {
  if (!report) return undefined;
  const error = report.errors?.[0];
  if (error) {
    const c = categorize(error);
    const advised = new CategorizedError(c.category, c.reason, `${c.message}; ${podAdvice(c.reason, c.message, fix)}`, {
      cause: c,
    });
    return { component, errors: [advised], dependencyType: 'Downstream' };
  }
  if (!report.reason || QUIET.has(report.reason) || report.state === 'Ready') return undefined;
  // a pod that cannot be placed or mounted is part of the object coming up (Starting, Progressing), not an
  // upstream dependency: only a crash loop (Degraded) makes it worse than that
  const h: ComponentHealth = {
    component,
    state: report.state === 'Degraded' ? 'Degraded' : 'Progressing',
    reason: report.reason,
    message: `${report.message ?? ''}; ${podAdvice(report.reason, report.message ?? '', fix)}`,
    dependencyType: 'Downstream',
    // a claim still being provisioned is a wait, not the user's to end: its PVC's own component says so
    // (a missing StorageClass is a ProvisioningFailed event there)
    ...(waitsForClaim(report) ? {} : { needsAction: true }),
  };
  return h;
}
