// v1alpha1 <-> v1alpha2 conversion (v1alpha2 is the hub). Each field of one version has a place in the
// other (docs/llamastack.md, "Versions"); fields only one version has travel in an annotation so a round
// trip through the other version gives back the same object:
//   v1alpha2 → v1alpha1: providers, resources, storage, disabled, externalProviders, networking.tls
//     (enabled, secretName), networking.expose.hostname, overrideConfig's namespace-less form →
//     `llamastack.io/v1alpha2-fields`;
//   v1alpha1 → v1alpha2: server.containerSpec.name → `llamastack.io/v1alpha1-fields`.
import {
  LLS_API_VERSION_V1ALPHA1,
  LLS_API_VERSION_V1ALPHA2,
  V1ALPHA1_FIELDS_ANNOTATION,
  V1ALPHA2_FIELDS_ANNOTATION,
} from './common.ts';
import type { LlamaStackDistribution, LlamaStackDistributionV1Alpha1 } from './crd.ts';
import { normalizeV1Alpha2Spec } from './normalize.ts';
import type { LlamaStackDistributionV1Alpha1Spec } from './v1alpha1.ts';
import type { LlamaStackDistributionSpec } from './v1alpha2.ts';

type Obj = Record<string, any>;

/** a copy of `o` without undefined values; undefined when nothing is left */
function compact<T extends Obj>(o: T): T | undefined {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return Object.keys(out).length ? (out as T) : undefined;
}

function readAnnotation(obj: { metadata: { annotations?: Record<string, string> } }, name: string): Obj {
  const raw = obj.metadata.annotations?.[name];
  if (raw === undefined) return {};
  try {
    const parsed = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    throw new Error(`annotation ${name} is not a JSON object: remove it or restore it from the object's v1alpha2 form`);
  }
}

function withAnnotation(meta: Obj, name: string, value: Obj | undefined): Obj {
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  delete annotations[name];
  if (value && Object.keys(value).length) annotations[name] = JSON.stringify(value);
  const out = { ...meta };
  if (Object.keys(annotations).length) out.annotations = annotations;
  else delete out.annotations;
  return out;
}

export function specToV1Alpha2(s1: LlamaStackDistributionV1Alpha1Spec, restored: Obj): LlamaStackDistributionSpec {
  const server = s1.server ?? ({} as LlamaStackDistributionV1Alpha1Spec['server']);
  const c = server.containerSpec ?? {};
  const pod = server.podOverrides ?? {};
  const r = restored as Partial<LlamaStackDistributionSpec>;
  const tls = compact({ ...(r.networking?.tls ?? {}), caBundle: server.tlsConfig?.caBundle });
  const expose = compact({ enabled: s1.network?.exposeRoute, hostname: r.networking?.expose?.hostname });
  const spec: Obj = {
    distribution: server.distribution,
    providers: r.providers,
    resources: r.resources,
    storage: r.storage,
    disabled: r.disabled,
    // port 0 is the published operator's "default" (8321): v1alpha2 leaves the port unset for that
    networking: compact({ port: c.port || undefined, tls, expose, allowedFrom: s1.network?.allowedFrom }),
    workload: compact({
      replicas: s1.replicas,
      workers: server.workers,
      resources: c.resources,
      autoscaling: server.autoscaling,
      storage: server.storage,
      podDisruptionBudget: server.podDisruptionBudget,
      topologySpreadConstraints: server.topologySpreadConstraints,
      overrides: compact({
        serviceAccountName: pod.serviceAccountName,
        terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds,
        env: c.env,
        command: c.command,
        args: c.args,
        volumes: pod.volumes,
        volumeMounts: pod.volumeMounts,
      }),
    }),
    externalProviders: r.externalProviders,
    overrideConfig: server.userConfig,
  };
  return normalizeV1Alpha2Spec(compact(spec) as LlamaStackDistributionSpec);
}

/** the v1alpha1 spec and the v1alpha2-only fields it cannot hold */
export function specToV1Alpha1(
  s2: LlamaStackDistributionSpec,
  restored: Obj,
): { spec: LlamaStackDistributionV1Alpha1Spec; only2: Obj | undefined } {
  const w = s2.workload ?? {};
  const o = w.overrides ?? {};
  const n = s2.networking ?? {};
  const containerSpec = compact({
    name: restored.containerName,
    port: n.port,
    resources: w.resources,
    env: o.env,
    command: o.command,
    args: o.args,
  });
  const podOverrides = compact({
    serviceAccountName: o.serviceAccountName,
    terminationGracePeriodSeconds: o.terminationGracePeriodSeconds,
    volumes: o.volumes,
    volumeMounts: o.volumeMounts,
  });
  const server = compact({
    distribution: s2.distribution,
    containerSpec,
    workers: w.workers,
    podOverrides,
    podDisruptionBudget: w.podDisruptionBudget,
    topologySpreadConstraints: w.topologySpreadConstraints,
    autoscaling: w.autoscaling,
    storage: w.storage,
    userConfig: s2.overrideConfig,
    tlsConfig: n.tls?.caBundle ? { caBundle: n.tls.caBundle } : undefined,
  });
  const spec = compact({
    replicas: w.replicas,
    server: server ?? { distribution: {} },
    network: compact({ exposeRoute: n.expose?.enabled, allowedFrom: n.allowedFrom }),
  }) as LlamaStackDistributionV1Alpha1Spec;
  const tls = compact({ enabled: n.tls?.enabled, secretName: n.tls?.secretName });
  const expose = compact({ hostname: n.expose?.hostname });
  const only2 = compact({
    providers: s2.providers,
    resources: s2.resources,
    storage: s2.storage,
    disabled: s2.disabled,
    externalProviders: s2.externalProviders,
    networking: compact({ tls, expose }),
  });
  return { spec, only2 };
}

export function toV1Alpha2(obj: LlamaStackDistributionV1Alpha1): LlamaStackDistribution {
  const restored = readAnnotation(obj, V1ALPHA2_FIELDS_ANNOTATION);
  const spec = specToV1Alpha2(obj.spec, restored);
  const only1 = compact({ containerName: obj.spec?.server?.containerSpec?.name });
  const metadata = withAnnotation(
    withAnnotation(obj.metadata, V1ALPHA2_FIELDS_ANNOTATION, undefined),
    V1ALPHA1_FIELDS_ANNOTATION,
    only1,
  );
  const out: Obj = { apiVersion: LLS_API_VERSION_V1ALPHA2, kind: obj.kind, metadata, spec };
  if (obj.status !== undefined) out.status = obj.status;
  return out as LlamaStackDistribution;
}

export function toV1Alpha1(obj: LlamaStackDistribution): LlamaStackDistributionV1Alpha1 {
  const restored = readAnnotation(obj, V1ALPHA1_FIELDS_ANNOTATION);
  const { spec, only2 } = specToV1Alpha1(obj.spec ?? ({} as LlamaStackDistributionSpec), restored);
  const metadata = withAnnotation(
    withAnnotation(obj.metadata, V1ALPHA1_FIELDS_ANNOTATION, undefined),
    V1ALPHA2_FIELDS_ANNOTATION,
    only2,
  );
  const out: Obj = { apiVersion: LLS_API_VERSION_V1ALPHA1, kind: obj.kind, metadata, spec };
  if (obj.status !== undefined) {
    const { resolvedDistribution: _r, configGeneration: _c, ...rest } = obj.status;
    out.status = rest;
  }
  return out as LlamaStackDistributionV1Alpha1;
}

/** the conversion webhook's converter: any served version to `desiredAPIVersion` */
export function convertLlamaStackDistribution(
  obj: { apiVersion: string } & Obj,
  desiredAPIVersion: string,
): { apiVersion: string } & Obj {
  if (obj.apiVersion === desiredAPIVersion) return obj;
  const hub =
    obj.apiVersion === LLS_API_VERSION_V1ALPHA1
      ? toV1Alpha2(obj as LlamaStackDistributionV1Alpha1)
      : obj.apiVersion === LLS_API_VERSION_V1ALPHA2
        ? (obj as LlamaStackDistribution)
        : undefined;
  if (!hub)
    throw new Error(
      `unsupported apiVersion ${obj.apiVersion}: served versions are ${LLS_API_VERSION_V1ALPHA1} and ${LLS_API_VERSION_V1ALPHA2}`,
    );
  if (desiredAPIVersion === LLS_API_VERSION_V1ALPHA2) return hub;
  if (desiredAPIVersion === LLS_API_VERSION_V1ALPHA1) return toV1Alpha1(hub);
  throw new Error(
    `cannot convert to ${desiredAPIVersion}: served versions are ${LLS_API_VERSION_V1ALPHA1} and ${LLS_API_VERSION_V1ALPHA2}`,
  );
}
