// Names and labels of what an AIMService creates. Every name is derived from the service (or, for an
// auto-created AIMModel, from the image) so a restarted operator plans exactly the same objects.
import { createHash } from 'node:crypto';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';

export const AIM_SERVICE_CONTROLLER = 'aim-service-controller';
export const PAUSE_ANNOTATION = AIM_PAUSE_ANNOTATIONS;

export const SERVICE_LABEL = 'aim.eai.amd.com/service';
export const MODEL_LABEL = 'aim.eai.amd.com/model';
export const TEMPLATE_LABEL = 'aim.eai.amd.com/template';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
/** KServe labels a predictor's pods with the InferenceService's name */
export const ISVC_POD_LABEL = 'serving.kserve.io/inferenceservice';
export const MANAGED_BY = 'modelplane';

/** KServe's predictor Service (RawDeployment) is `<isvc>-predictor`, serving HTTP on port 80 */
export const PREDICTOR_SUFFIX = '-predictor';
export const PREDICTOR_SERVICE_PORT = 80;

const DNS_LABEL_MAX = 63;
const HASH_LENGTH = 8;

export function shortHash(input: string, length = HASH_LENGTH): string {
  return createHash('sha256').update(input).digest('hex').slice(0, length);
}

/** the InferenceService is named like the service (KServe derives `<name>-predictor` from it) */
export function inferenceServiceName(serviceName: string): string {
  return serviceName;
}

export function predictorServiceName(isvcName: string): string {
  return `${isvcName}${PREDICTOR_SUFFIX}`;
}

/** one HTTPRoute per service, named like it, so `kubectl get httproute <service>` finds it */
export function httpRouteName(serviceName: string): string {
  return serviceName;
}

/** lowercase alphanumerics and single '-' (DNS-1123 label characters), '' when nothing is left */
function dnsLabelChars(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `base-<hash>` cut to a DNS-1123 label: the hash keeps names of different inputs apart after truncation */
function withHash(base: string, hashInput: string): string {
  const hash = shortHash(hashInput);
  const room = DNS_LABEL_MAX - hash.length - 1;
  const head = base.slice(0, room).replace(/-+$/, '');
  return head ? `${head}-${hash}` : hash;
}

/**
 * The AIMModel auto-created for `spec.model.image`: the repository's last segment and the tag, made
 * DNS-1123, plus a hash of the whole reference. The hash is always there: `a/llama:1` and `b/llama:1` are
 * different images, and without it the second service would overwrite the first one's model.
 */
export function autoModelName(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const repoAndTag = withoutDigest.slice(lastSlash + 1);
  const colon = repoAndTag.lastIndexOf(':');
  const readable = colon < 0 ? repoAndTag : `${repoAndTag.slice(0, colon)}-${repoAndTag.slice(colon + 1)}`;
  return withHash(dnsLabelChars(readable) || 'model', image);
}

/** a valid label value for an object name (names can be 253 characters, label values 63) */
export function labelValueFor(name: string): string {
  if (name.length <= DNS_LABEL_MAX && /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name)) return name;
  return withHash(dnsLabelChars(name), name);
}
