// Strategy for built-in kinds: kube's defaults, server-assigned fields (Service cluster IPs, Namespace
// and Pod phases), a few validations users rely on, strategic merge with the real merge keys, and the
// full CRD check for CustomResourceDefinitions.

import { decodeBuiltin } from '../builtin/decode.ts';
import { applyBuiltinDefaults } from '../builtin/defaults.ts';
import { applyPodAdmissionDefaults } from '../builtin/pod-defaults.ts';
import { validateBuiltin } from '../builtin/validate.ts';
import type { TypeStrategy } from '../objects/strategy.ts';
import { patchSchemaFor } from '../patch/index.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { defaultCrd } from '../schema/index.ts';
import type { KubeObject } from '../types.ts';
import type { ClusterIpAllocator } from './cluster-ip.ts';

export function builtinStrategy(rt: ResourceType, ips: ClusterIpAllocator): TypeStrategy {
  const isCrd = rt.group === 'apiextensions.k8s.io' && rt.kind === 'CustomResourceDefinition';
  return {
    strategicMerge: true,
    // kube decodes built-ins into Go structs: unknown fields dropped (and reported), wrong types refused
    prune: (obj, version) => {
      const unknown = decodeBuiltin(obj, rt.group, version, rt.kind);
      if (rt.group === '' && rt.kind === 'Secret') mergeStringData(obj);
      return unknown;
    },
    applyDefaults: (obj, version) => {
      if (isCrd) defaultCrd(obj);
      applyBuiltinDefaults(rt.group, version, rt.kind, obj);
    },
    validate: (obj, old) => validateBuiltin(rt, obj, old),
    patchSchema: (version) => patchSchemaFor(rt.group, version, rt.kind),
    prepareForCreate: (obj) => prepareBuiltin(rt, obj, ips),
    prepareForUpdate: (obj, old) => {
      // kube's namespace strategy: spec.finalizers only change through the /finalize subresource
      if (
        rt.group === '' &&
        rt.kind === 'Namespace' &&
        obj.spec !== null &&
        typeof obj.spec === 'object' &&
        !Array.isArray(obj.spec)
      ) {
        const finalizers = (old.spec as { finalizers?: string[] } | undefined)?.finalizers;
        if (finalizers === undefined) delete (obj.spec as Record<string, unknown>).finalizers;
        else (obj.spec as Record<string, unknown>).finalizers = [...finalizers]; // (a copy: stored objects never change)
      }
    },
  };
}

/**
 * kube's v1 → internal Secret conversion: each stringData entry overwrites the data entry of the same key
 * (base64 of its UTF-8 bytes) and stringData itself is never stored, so readers only ever see `data`.
 */
function mergeStringData(secret: KubeObject): void {
  const stringData = secret.stringData as Record<string, string> | null | undefined;
  delete secret.stringData;
  if (!stringData || Object.keys(stringData).length === 0) return;
  const data = { ...((secret.data as Record<string, string> | null | undefined) ?? {}) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v ?? '', 'utf8').toString('base64');
  secret.data = data;
}

function prepareBuiltin(rt: ResourceType, obj: KubeObject, ips: ClusterIpAllocator): void {
  const key = `${rt.group}/${rt.kind}`;
  // Mistyped objects are refused right after this (decodeBuiltin); do not touch them here.
  for (const f of ['spec', 'status'] as const) {
    const v = obj[f];
    if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) return;
  }
  if (key === '/Namespace') {
    // kube's namespace strategy: the kubernetes finalizer is required on create, after any the creator named
    const spec = { ...((obj.spec as { finalizers?: unknown }) ?? {}) };
    const named = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    spec.finalizers = named.includes('kubernetes') ? named : [...named, 'kubernetes'];
    obj.spec = spec;
    obj.status = { phase: 'Active' };
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name! };
  } else if (key === '/Pod') {
    applyPodAdmissionDefaults(obj);
    obj.status = { phase: 'Pending', qosClass: podQosClass(obj), ...((obj.status as object) ?? {}) };
  } else if (key === '/Service') {
    const spec = (obj.spec ?? {}) as Record<string, unknown>;
    if (spec.type !== 'ExternalName' && (spec.clusterIP === undefined || spec.clusterIP === '')) {
      spec.clusterIP = ips.allocate();
      spec.clusterIPs = [spec.clusterIP];
    }
    obj.spec = spec;
  } else if (key === '/PersistentVolumeClaim') {
    obj.status = { phase: 'Pending', ...((obj.status as object) ?? {}) };
  }
}

type Resources = { requests?: Record<string, unknown>; limits?: Record<string, unknown> };

/** kube's qos.GetPodQOS: Guaranteed when every container limits cpu and memory with requests equal to limits. */
function podQosClass(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const spec = (pod.spec ?? {}) as { containers?: unknown; initContainers?: unknown };
  // (runs before decoding: anything may be anywhere)
  const list = (v: unknown) => (Array.isArray(v) ? (v as Array<{ resources?: Resources } | null>) : []);
  const containers = [...list(spec.containers), ...list(spec.initContainers)];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const req = asRecord(c?.resources?.requests);
    const lim = asRecord(c?.resources?.limits);
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      const l = lim[r];
      const q = req[r] ?? l;
      if (l === undefined || String(q) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
