// The children the simulated operators create (Deployments and Services owned by their custom resource),
// written with server-side apply only when the cached copy differs, and the status write-back. Every read
// comes from the informer cache, so a resync with nothing changed costs no request.

import { isNotFound, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext } from '@modelplane/runtime/controller';
import { controllerRef, type KindRef, type KubeObject } from '@modelplane/runtime/meta';
import type { Deployment, Json, Pod, PodSpec, PodTemplate, Service } from './kinds.ts';
import { SimDeployments, SimPods } from './kinds.ts';

/** annotations a user puts on a custom resource to drive the simulated kubelet (failure injection, logs) */
export const SIM_ANNOTATION_PREFIX = 'sim.modelplane.io/';

export function simAnnotations(
  ...sources: Array<{ metadata?: { annotations?: Record<string, string> } } | undefined>
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const src of sources) {
    for (const [k, v] of Object.entries(src?.metadata?.annotations ?? {}))
      if (k.startsWith(SIM_ANNOTATION_PREFIX)) out[k] = v;
  }
  return out;
}

export function selectorString(matchLabels: Record<string, string>): string {
  return Object.entries(matchLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** applies `desired` unless the cached copy already has it; returns what is now live (cached or written) */
export async function applyChild<T extends KubeObject>(
  ctx: ReconcileContext,
  kind: KindRef<T>,
  desired: KubeObject,
): Promise<T> {
  const live = await ctx.cache.get(kind, desired.metadata.name ?? '', desired.metadata.namespace);
  if (live && !needsApply(desired, live, ctx.controller)) return live;
  return ctx.client.apply<T>(desired);
}

/** writes `status` to the object's status subresource unless it already holds exactly that */
export async function applyStatus(ctx: ReconcileContext, obj: KubeObject, status: Json): Promise<void> {
  const desired: KubeObject = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) },
    status,
  };
  if (!needsApply(desired, obj, ctx.controller, 'status')) return;
  try {
    await ctx.client.applyStatus(desired);
  } catch (err) {
    // the object was deleted meanwhile: its delete event follows, and a retry would only repeat the 404
    if (!isNotFound(err)) throw err;
  }
}

export interface DeploymentInput {
  owner: KubeObject;
  name: string;
  labels: Record<string, string>;
  /** the subset of pod labels the Deployment selects on */
  selector: Record<string, string>;
  replicas: number;
  template: PodTemplate & { spec: PodSpec };
  annotations?: Record<string, string>;
}

export function deploymentFor(input: DeploymentInput): Deployment {
  const podLabels = { ...(input.template.metadata?.labels ?? {}), ...input.selector };
  const podAnnotations = input.template.metadata?.annotations ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: input.name,
      namespace: input.owner.metadata.namespace ?? '',
      labels: input.labels,
      ...(input.annotations && Object.keys(input.annotations).length > 0 ? { annotations: input.annotations } : {}),
      ownerReferences: [controllerRef(input.owner)],
    },
    spec: {
      replicas: input.replicas,
      selector: { matchLabels: input.selector },
      template: {
        metadata: {
          labels: podLabels,
          ...(Object.keys(podAnnotations).length > 0 ? { annotations: podAnnotations } : {}),
        },
        spec: input.template.spec,
      },
    },
  };
}

export interface ServicePort {
  name: string;
  port: number;
  targetPort: number | string;
  protocol?: 'TCP' | 'UDP';
}

export function serviceFor(
  owner: KubeObject,
  name: string,
  labels: Record<string, string>,
  selector: Record<string, string>,
  ports: ServicePort[],
): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: owner.metadata.namespace ?? '', labels, ownerReferences: [controllerRef(owner)] },
    spec: {
      type: 'ClusterIP',
      selector,
      ports: ports.map((p) => ({
        name: p.name,
        port: p.port,
        targetPort: p.targetPort,
        protocol: p.protocol ?? 'TCP',
      })),
    },
  };
}

/** the live Deployment (from the cache) and the pods it selects */
export async function observeDeployment(
  ctx: ReconcileContext,
  namespace: string,
  name: string,
  selector: Record<string, string>,
): Promise<{ deployment?: Deployment; pods: Pod[] }> {
  const deployment = await ctx.cache.get(SimDeployments, name, namespace);
  const pods = await ctx.cache.list(SimPods, { namespace, labelSelector: selectorString(selector) });
  return { ...(deployment ? { deployment } : {}), pods };
}

/** a mutable deep copy of a (frozen) cached value */
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Kubernetes name rules: lowercase alphanumerics and '-', at most `max` characters */
export function dnsName(raw: string, max = 63): string {
  const cleaned = raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cleaned.slice(0, max).replace(/-+$/, '') || 'x';
}
