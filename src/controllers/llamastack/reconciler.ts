// The LlamaStackDistribution reconciler on the engine: fetch (cache reads only), observe (pure: image,
// generated config, secrets), plan, health for the apply decision, and the status set by hand because
// the condition contract (ConfigGenerated, DeploymentUpdated, Available, SecretsResolved) is the kind's own.
import {
  type ConfigMap,
  ConfigMaps,
  HorizontalPodAutoscalers,
  PersistentVolumeClaims,
  type Secret,
  Secrets,
  ServiceAccounts,
  Services,
} from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { ModelDeployments } from '../../apis/kubeairunway/index.ts';
import { type LlamaStackDistribution, normalizeV1Alpha2Spec } from '../../apis/llamastack/index.ts';
import {
  clientReader,
  type DomainReconciler,
  type FetchResult,
  fetch,
  fetchList,
  type ObjectReader,
  Pipeline,
  type PipelineOptions,
} from '../../engine/index.ts';
import { AIMServices } from '../aim/shared/kinds.ts';
import { DEFAULT_PORT, hasDeclarativeConfig, parseImageOverrides, resolveImage } from './config/index.ts';
import { expectedModels, listingGood, listModels, type ModelCheck, type ModelListing } from './model-check.ts';
import {
  CONFIG_HASH_ANNOTATION,
  caBundleConfigMapName,
  type Deployment,
  Deployments,
  GENERATED_CONFIG_LABEL,
  GENERATED_CONFIGMAPS,
  hpaName,
  IMAGE_OVERRIDES_KEY,
  INSTANCE_LABEL,
  Ingresses,
  ingressName,
  LLAMASTACK_CONTROLLER,
  NetworkPolicies,
  networkPolicyName,
  OPERATOR_CONFIGMAP,
  operatorConfigMapInformer,
  PAUSE_ANNOTATION,
  PodDisruptionBudgets,
  pdbName,
  pvcName,
  REFERENCE_RECHECK_MS,
  ReplicaSets,
  serviceAccountName,
  serviceName,
  WATCHED_CONFIGMAPS,
} from './names.ts';
import {
  endpointOf,
  endpointServiceOf,
  type LlamaStackFetch,
  type LlamaStackObservation,
  observe,
  type ReferencedEndpoint,
  referencedEndpoints,
} from './observe.ts';
import type { OciResolution } from './oci-config.ts';
import type { OciConfigResolver } from './oci-resolver.ts';
import { planLlamaStack } from './plan.ts';
import { secretRefsOf } from './secret-refs.ts';
import { probeServer, ReportMemory, ServerReports, type ServiceUrl } from './server-health.ts';
import { deploymentAvailable, type LlamaStackStatus, llamaStackHealth, setLlamaStackStatus } from './status.ts';
import { classifyWriteError } from './write-failures.ts';

export interface LlamaStackReconcilerOptions {
  /** where the operator ConfigMap (image overrides) lives, and whose pods the NetworkPolicy lets in */
  operatorNamespace: string;
  /** how often an object's referenced Secrets and ConfigMaps are read again (default REFERENCE_RECHECK_MS) */
  recheckMs?: number;
  /** where Secrets and unwatched ConfigMaps are read by name (default: the API server; `render`: its file) */
  byName?: ObjectReader;
  /** where the operator reaches a server's Service; unset: the running server is not read */
  serviceUrl?: ServiceUrl;
  /** reads base configs from image labels; unset: only the built-in base configs are used */
  ociResolver?: OciConfigResolver;
}

/** the image's base config as its registry says, when a config is to be generated from one */
async function resolveOciConfig(
  resolver: OciConfigResolver | undefined,
  spec: LlamaStackDistribution['spec'],
  operatorConfig: FetchResult<ConfigMap>,
): Promise<OciResolution | undefined> {
  if (!resolver || spec.overrideConfig || !hasDeclarativeConfig(spec)) return undefined;
  const overrides = parseImageOverrides(
    operatorConfig.ok() ? operatorConfig.value.data?.[IMAGE_OVERRIDES_KEY] : undefined,
  );
  const image = resolveImage(spec.distribution, overrides.images);
  return image.ok ? resolver.resolve(image.image) : undefined;
}

/** the rollout the Deployment describes once every replica of it is available, else undefined */
function completedRollout(d: Deployment | undefined): string | undefined {
  if (!d || !deploymentAvailable(d)) return undefined;
  return `${d.metadata.generation ?? 0}/${d.spec?.template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? ''}`;
}

/**
 * A referenced ConfigMap: from the label-filtered cache when its owner labelled it to be watched, otherwise
 * read by name from the API server (the cache holds no unlabelled ConfigMap of the cluster).
 */
async function fetchReferencedConfigMap(
  cache: ObjectReader,
  live: ObjectReader,
  name: string,
  ns: string,
): Promise<FetchResult<ConfigMap>> {
  const watched = await fetch(cache, ConfigMaps, name, ns, WATCHED_CONFIGMAPS);
  return watched.isNotFound() ? fetch(live, ConfigMaps, name, ns) : watched;
}

/** referenced Secrets, read by name from the API server: no informer holds any Secret */
async function fetchSecrets(
  reader: ObjectReader,
  names: string[],
  ns: string,
): Promise<Map<string, FetchResult<Secret>>> {
  const results = await Promise.all(names.map((n) => fetch(reader, Secrets, n, ns)));
  return new Map(names.map((n, i) => [n, results[i]!]));
}

function referencesSecretsOrConfigMaps(obs: LlamaStackObservation): boolean {
  return obs.secretRefs.length > 0 || obs.fetched.overrideConfig !== undefined || obs.fetched.caBundle !== undefined;
}

/**
 * Each referenced endpoint's /v1/models, asked once per change (the endpoint, the referenced object's
 * version, the spec's generation) and again every recheck while it does not list what the config expects.
 */
async function checkModels(
  object: LlamaStackDistribution,
  refs: readonly ReferencedEndpoint[],
  serviceUrl: ServiceUrl,
  memory: ReportMemory<ModelListing & { expected: string[] }>,
): Promise<ModelCheck[]> {
  const ns = object.metadata.namespace!;
  const expected = expectedModels(normalizeV1Alpha2Spec(object.spec));
  const checks = refs.map(async (ref): Promise<ModelCheck | undefined> => {
    const ep = endpointServiceOf(ref);
    const url = endpointOf(ref, ns);
    if (!ep || !url) return undefined;
    const want = expected.get(ref.providerId) ?? [];
    const version = ref.object.ok() ? ref.object.value.metadata.resourceVersion : '';
    const key = JSON.stringify([object.metadata.generation, url, version, want]);
    const id = `${object.metadata.uid ?? `${ns}/${object.metadata.name}`}/${ref.providerId}`;
    const listing = await memory.get(id, key, Date.now(), async () => {
      const base = await serviceUrl(ns, ep.service, ep.port ?? 80);
      return { ...(await listModels(base && `${base.replace(/\/+$/, '')}/v1`)), expected: want };
    });
    const { expected: _, ...answer } = listing;
    return {
      providerId: ref.providerId,
      field: ref.field,
      kind: ref.kind,
      name: ref.name,
      url,
      expected: want,
      listing: answer,
    };
  });
  return (await Promise.all(checks)).filter((c): c is ModelCheck => c !== undefined);
}

/**
 * When to look again though no event comes: Secrets and unwatched ConfigMaps send none, nor does a server's
 * health or its model list (the recheck interval); a registry that failed is asked again after its backoff,
 * a tag after the recheck. The shortest of those that apply; undefined when none does.
 */
function recheckAfterMs(obs: LlamaStackObservation, recheckMs: number): number | undefined {
  const waits: number[] = [];
  const unhealthy =
    (obs.fetched.server && !(obs.fetched.server.reachable && obs.fetched.server.healthy)) ||
    obs.fetched.models?.some((m) => !listingGood(m.listing, m.expected));
  if (referencesSecretsOrConfigMaps(obs) || unhealthy) waits.push(recheckMs);
  const oci = obs.fetched.ociConfig;
  if (oci) waits.push(oci.kind === 'unavailable' ? Math.max(oci.retryInMs, 1) : recheckMs);
  return waits.length > 0 ? Math.min(...waits) : undefined;
}

/**
 * What the distribution references: the operator's ConfigMap, the override config and CA bundle ConfigMaps,
 * the Secrets its providers name, and the ModelDeployments or AIMServices serving its models.
 */
async function fetchReferenced(
  opts: LlamaStackReconcilerOptions,
  reader: ObjectReader,
  live: ObjectReader,
  object: LlamaStackDistribution,
  spec: LlamaStackDistribution['spec'],
) {
  const ns = object.metadata.namespace!;
  const override = spec.overrideConfig;
  const ca = spec.networking?.tls?.caBundle;
  const refs = referencedEndpoints(object);
  const [operatorConfig, overrideConfig, caBundle, secrets, refObjects] = await Promise.all([
    fetch(
      reader,
      ConfigMaps,
      OPERATOR_CONFIGMAP,
      opts.operatorNamespace,
      operatorConfigMapInformer(opts.operatorNamespace),
    ),
    override
      ? fetchReferencedConfigMap(reader, live, override.configMapName, override.configMapNamespace ?? ns)
      : undefined,
    ca ? fetchReferencedConfigMap(reader, live, ca.configMapName, ca.configMapNamespace ?? ns) : undefined,
    fetchSecrets(live, [...new Set(secretRefsOf(spec).map((r) => r.secret))], ns),
    Promise.all(
      refs.map((r) =>
        fetch<KubeObject>(reader, r.kind === 'ModelDeployment' ? ModelDeployments : AIMServices, r.name, ns),
      ),
    ),
  ]);
  return {
    operatorConfig,
    ...(overrideConfig ? { overrideConfig } : {}),
    ...(caBundle ? { caBundle } : {}),
    secrets,
    refs: refs.map((r, i) => ({ ...r, object: refObjects[i]! })),
  };
}

/** the objects the operator makes for distribution `name`, from the cache */
function fetchOwned(reader: ObjectReader, name: string, ns: string) {
  return allOf({
    deployment: fetch(reader, Deployments, name, ns),
    service: fetch(reader, Services, serviceName(name), ns),
    serviceAccount: fetch(reader, ServiceAccounts, serviceAccountName(name), ns),
    pvc: fetch(reader, PersistentVolumeClaims, pvcName(name), ns),
    pdb: fetch(reader, PodDisruptionBudgets, pdbName(name), ns),
    hpa: fetch(reader, HorizontalPodAutoscalers, hpaName(name), ns),
    networkPolicy: fetch(reader, NetworkPolicies, networkPolicyName(name), ns),
    ingress: fetch(reader, Ingresses, ingressName(name), ns),
    configMaps: fetchList(
      reader,
      ConfigMaps,
      { namespace: ns, labelSelector: `${GENERATED_CONFIG_LABEL}=true,${INSTANCE_LABEL}=${name}` },
      GENERATED_CONFIGMAPS,
    ),
    replicaSets: fetchList(reader, ReplicaSets, { namespace: ns, labelSelector: `${INSTANCE_LABEL}=${name}` }),
    caBundleConfigMap: fetch(reader, ConfigMaps, caBundleConfigMapName(name), ns, GENERATED_CONFIGMAPS),
  });
}

/** every promise of `reads`, awaited together, under the same keys */
async function allOf<T extends Record<string, Promise<unknown>>>(reads: T): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const keys = Object.keys(reads);
  const values = await Promise.all(Object.values(reads));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]])) as { [K in keyof T]: Awaited<T[K]> };
}

export function llamaStackReconciler(
  opts: LlamaStackReconcilerOptions,
): DomainReconciler<LlamaStackDistribution, LlamaStackFetch, LlamaStackObservation, unknown, LlamaStackStatus> {
  const reports = new ServerReports(opts.recheckMs ?? REFERENCE_RECHECK_MS);
  const listings = new ReportMemory<ModelListing & { expected: string[] }>(
    opts.recheckMs ?? REFERENCE_RECHECK_MS,
    (l) => listingGood(l, l.expected),
  );
  return {
    async fetchRemoteState({ object, reader, client }) {
      const ns = object.metadata.namespace!;
      const name = object.metadata.name!;
      const spec = normalizeV1Alpha2Spec(object.spec);
      const live = opts.byName ?? clientReader(client);
      const referenced = await fetchReferenced(opts, reader, live, object, spec);
      const owned = await fetchOwned(reader, name, ns);
      const rollout = completedRollout(owned.deployment.ok() ? owned.deployment.value : undefined);
      const port = spec.networking?.port ?? DEFAULT_PORT;
      const serviceUrl = opts.serviceUrl;
      // the server's health, asked once per completed rollout (and again after the recheck while it is unwell)
      const server =
        rollout && serviceUrl
          ? await reports.get(object.metadata.uid ?? `${ns}/${name}`, rollout, Date.now(), async () =>
              probeServer(await serviceUrl(ns, serviceName(name), port)),
            )
          : undefined;
      const [models, ociConfig] = await Promise.all([
        serviceUrl ? checkModels(object, referenced.refs, serviceUrl, listings) : undefined,
        resolveOciConfig(opts.ociResolver, spec, referenced.operatorConfig),
      ]);
      return {
        ...(ociConfig ? { ociConfig } : {}),
        ...(server ? { server } : {}),
        ...(models ? { models } : {}),
        ...referenced,
        ...owned,
      };
    },
    composeState: ({ object }, fetched) => observe(object, fetched),
    planResources: ({ object }, obs) => {
      const plan = planLlamaStack(object, obs, opts.operatorNamespace);
      const recheckAfter = recheckAfterMs(obs, opts.recheckMs ?? REFERENCE_RECHECK_MS);
      if (recheckAfter !== undefined) plan.requeueAfter(recheckAfter);
      return plan;
    },
    getComponentHealth: (obs, { object }) => llamaStackHealth(object, obs),
    setStatus: (status, cm, obs, ctx) => setLlamaStackStatus(status, cm, obs, ctx),
  };
}

export interface LlamaStackPipelineOptions
  extends LlamaStackReconcilerOptions,
    Partial<
      Pick<
        PipelineOptions<LlamaStackDistribution, LlamaStackFetch, LlamaStackObservation, unknown, LlamaStackStatus>,
        'clock' | 'gracePeriodMs' | 'settleWindowMs'
      >
    > {}

export function llamaStackPipeline(
  opts: LlamaStackPipelineOptions,
): Pipeline<LlamaStackDistribution, LlamaStackFetch, LlamaStackObservation, unknown, LlamaStackStatus> {
  return new Pipeline({
    name: LLAMASTACK_CONTROLLER,
    reconciler: llamaStackReconciler(opts),
    pauseAnnotation: PAUSE_ANNOTATION,
    statusField: 'phase',
    observedGeneration: true,
    classifyWriteError,
    // the generated ConfigMaps are read from their own label-filtered informer, never from one of them all
    childInformer: (ref) => (ref.kind === 'ConfigMap' ? GENERATED_CONFIGMAPS : undefined),
    ...(opts.settleWindowMs !== undefined ? { settleWindowMs: opts.settleWindowMs } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.gracePeriodMs !== undefined ? { gracePeriodMs: opts.gracePeriodMs } : {}),
  });
}
