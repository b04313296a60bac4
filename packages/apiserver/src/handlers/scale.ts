// The scale subresource: an autoscaling/v1 Scale view of an object's replica count, with the paths
// taken from the built-in definition or the CRD's `subresources.scale`.
import { errors } from '../errors.ts';
import { isPlainObject } from '../objects/meta.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';
import { labelSelectorToString } from './selectors.ts';

function pathParts(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of pathParts(path)) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = pathParts(path);
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isPlainObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

const scaleSpec = (replicas: number) => (replicas === 0 ? {} : { replicas });

export function readScale(rt: ResourceType, obj: KubeObject): Record<string, unknown> {
  const s = rt.subresources.scale!;
  const m = obj.metadata;
  const selector = s.labelSelectorPath ? getPath(obj, s.labelSelectorPath) : undefined;
  const specSelector = rt.builtin ? getPath(obj, '.spec.selector') : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    // ScaleSpec.replicas is an `omitempty` int32: kube leaves 0 out
    spec: scaleSpec((getPath(obj, s.specReplicasPath) as number | undefined) ?? 0),
    status: {
      replicas: (getPath(obj, s.statusReplicasPath) as number | undefined) ?? 0,
      ...(typeof selector === 'string'
        ? { selector }
        : isPlainObject(specSelector)
          ? { selector: labelSelectorToString(specSelector) }
          : {}),
    },
  };
}

/** The object with spec replicas taken from a Scale written by the client. */
export function scaleToCandidate(rt: ResourceType, old: KubeObject, scale: Record<string, unknown>): KubeObject {
  const replicas = isPlainObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw errors.invalid('Scale', 'autoscaling', old.metadata.name ?? '', [
      {
        field: 'spec.replicas',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
      },
    ]);
  }
  const meta = isPlainObject(scale.metadata) ? scale.metadata : {};
  if (meta.resourceVersion && meta.resourceVersion !== old.metadata.resourceVersion) {
    throw errors.conflict(
      rt.plural,
      rt.group,
      old.metadata.name!,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
  const next = structuredClone(old) as KubeObject;
  setPath(next, rt.subresources.scale!.specReplicasPath, replicas);
  return next;
}
