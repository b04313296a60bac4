// What a template reconcile reads: its model, the cluster's GPUs (node labels), its discovery Job and the
// number of discovery Jobs running cluster-wide (all from the cache), the Job's output once it completed
// (live, once), and the template cache it creates when caching is on.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import {
  type Clock,
  type FetchContext,
  FetchResult,
  fetch,
  type HealthReport,
  type Job,
  jobPodLog,
  jobPodsHealth,
  missingUpstreamError,
} from '../../../engine/index.ts';
import { DISCOVERY_APP, DISCOVERY_APP_LABEL, discoverySpecHash, TEMPLATE_LABEL } from '../catalog/discovery.ts';
import { clusterGpus } from '../catalog/gpu.ts';
import {
  AIMClusterModels,
  AIMModels,
  type AIMTemplateCache,
  AIMTemplateCaches,
  type AnyModel,
  type AnyTemplate,
} from '../shared/kinds.ts';
import type { AimRuntimeConfig } from '../shared/runtime-config-source.ts';
import { currentJobName } from './discovery-plan.ts';

export const Nodes = kindRef<KubeObject>('v1', 'Node');
export const DiscoveryJobs = kindRef<Job>('batch/v1', 'Job');

export interface TemplateFetch {
  model: FetchResult<AnyModel>;
  gpus: FetchResult<Map<string, number>>;
  specHash: string;
  /** the discovery Jobs of this template (every attempt still there) */
  jobs: Job[];
  /** output of the current attempt's Job, when it completed and the profile is not known yet */
  log?: string;
  activeDiscoveryJobs: number;
  /** `namespace/name` of every discovery Job listed (running or not) */
  listedDiscoveryJobs: Set<string>;
  cache?: FetchResult<AIMTemplateCache>;
  now: number;
  /** where this template's Jobs run: its namespace, or the operator namespace for cluster templates */
  jobNamespace: string;
  /** the pods of the current attempt's Job while it runs (why it may not finish) */
  discoveryPods?: HealthReport;
}

/** a discovery Job still running (it counts against the cluster-wide limit) */
export const isDiscoveryJobActive = (j: Pick<Job, 'status'>) =>
  !(j.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

/** a template waiting for a free discovery slot */
export const isDiscoveryThrottled = (t: AnyTemplate) =>
  (t.status?.conditions ?? []).some((c) => c.type === 'DiscoveryReady' && c.reason === 'DiscoveryThrottled');

async function fetchModel(
  reader: FetchContext<AnyTemplate, AimRuntimeConfig>['reader'],
  t: AnyTemplate,
): Promise<FetchResult<AnyModel>> {
  const name = t.spec.modelName;
  const ns = t.metadata.namespace;
  if (ns) {
    const own = await fetch<AnyModel>(reader, AIMModels, name, ns);
    if (own.ok() || !own.isNotFound()) return own;
  }
  const cluster = await fetch<AnyModel>(reader, AIMClusterModels, name);
  if (cluster.ok() || !cluster.isNotFound()) return cluster;
  const where = ns ? `no AIMModel ${ns}/${name} and no AIMClusterModel ${name}` : `no AIMClusterModel ${name}`;
  return FetchResult.failure(missingUpstreamError('ModelNotFound', `spec.modelName: ${where} exist`), {
    kind: 'AIMModel',
    name,
    ...(ns ? { namespace: ns } : {}),
  });
}

export async function fetchTemplateState(
  ctx: FetchContext<AnyTemplate, AimRuntimeConfig>,
  operatorNamespace: string,
  clock: Clock,
): Promise<TemplateFetch> {
  const t = ctx.object;
  const jobNamespace = t.metadata.namespace || operatorNamespace;
  const [model, nodes, allJobs] = await Promise.all([
    fetchModel(ctx.reader, t),
    ctx.reader.list(Nodes).then(
      (n) => FetchResult.of(clusterGpus(n)),
      (err) => FetchResult.failure<Map<string, number>>(err, { kind: 'Node' }),
    ),
    ctx.reader.list(DiscoveryJobs, { labelSelector: `${DISCOVERY_APP_LABEL}=${DISCOVERY_APP}` }),
  ]);
  const image = model.ok() ? model.value.spec.image : '';
  const specHash = discoverySpecHash(image, { ...t.spec, ...(t.spec.hardware ? { hardware: t.spec.hardware } : {}) });
  const label = (t.metadata.name ?? '').slice(0, 63).replace(/[^a-z0-9A-Z]+$/, '');
  const jobs = allJobs.filter(
    (j) => j.metadata.namespace === jobNamespace && j.metadata.labels?.[TEMPLATE_LABEL] === label,
  );
  const out: TemplateFetch = {
    model,
    gpus: nodes,
    specHash,
    jobs,
    activeDiscoveryJobs: allJobs.filter(isDiscoveryJobActive).length,
    listedDiscoveryJobs: new Set(allJobs.map((j) => `${j.metadata.namespace}/${j.metadata.name}`)),
    now: clock.now(),
    jobNamespace,
  };
  const d = t.status?.discovery;
  const needsOutput = !(d?.specHash === specHash && t.status?.profile);
  const current = currentJobName(t.metadata.name ?? '', t.status, specHash);
  const done = jobs.find(
    (j) =>
      j.metadata.name === current &&
      (j.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True'),
  );
  if (needsOutput && done) out.log = await jobPodLog(ctx.client, done, 'discovery').catch(() => undefined);
  const running =
    needsOutput && !done ? jobs.find((j) => j.metadata.name === current && isDiscoveryJobActive(j)) : undefined;
  if (running) {
    const pods = await jobPodsHealth(ctx.client, running);
    if (pods) out.discoveryPods = pods;
  }
  const caching = (t.spec as { caching?: { enabled?: boolean } }).caching?.enabled === true;
  if (caching && t.metadata.namespace)
    out.cache = await fetch(ctx.reader, AIMTemplateCaches, t.metadata.name ?? '', t.metadata.namespace);
  return out;
}
