// `modelplane render`: the objects the controllers would create for a set of resources, computed without a
// cluster by the same fetch → compose → plan → label/ownerReference steps the controllers run, over an
// in-memory reader holding the input. Objects the input does not give a uid get a stable placeholder, so
// default route paths and ownerReferences are visibly not real.
import { createHash } from 'node:crypto';
import { type KindRef, type KubeObject, parseSelector } from '@modelplane/runtime/meta';
import { type InferenceProviderConfig, type ModelDeployment, ModelDeployments } from '../apis/kubeairunway/index.ts';
import { type LlamaStackDistribution, LlamaStackDistributions, toV1Alpha2 } from '../apis/llamastack/index.ts';
import { type ObjectReader, prepareForApply, type ReadClient, SILENT_LOG } from '../engine/index.ts';
import { aimServicePipeline, aimServiceReconciler } from './aim/service/index.ts';
import { AIMClusterModels, AIMModels, type AIMService, AIMServices } from './aim/shared/kinds.ts';
import { fetchAimRuntimeConfig } from './aim/shared/runtime-config-source.ts';
import type { ProviderDefinition } from './kubeairunway/provider/definition.ts';
import { buildDesired } from './kubeairunway/provider/desired.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from './kubeairunway/providers/index.ts';
import { defaultProviderConfig, selectProvider } from './kubeairunway/selection/index.ts';
import { storageObjects } from './kubeairunway/storage/index.ts';
import {
  admissionMessage,
  checkProviderCompatibility,
  defaultModelDeployment,
  validateModelDeployment,
} from './kubeairunway/validation/index.ts';
import { renderLlamaStack } from './llamastack/render.ts';

export interface RenderOutcome {
  /** the input object, as `Kind namespace/name` */
  source: string;
  objects: KubeObject[];
  /** why something is not rendered, or what a condition would say (the controllers' messages) */
  problems: string[];
}

class MemoryReader implements ObjectReader {
  constructor(private readonly objects: KubeObject[]) {}
  async get<T extends KubeObject>(kind: KindRef<T>, name: string, namespace?: string): Promise<T | undefined> {
    return this.objects.find(
      (o) => same(o, kind) && o.metadata.name === name && (o.metadata.namespace ?? '') === (namespace ?? ''),
    ) as T | undefined;
  }
  async list<T extends KubeObject>(
    kind: KindRef<T>,
    opts: { namespace?: string; labelSelector?: string } = {},
  ): Promise<T[]> {
    const selector = opts.labelSelector ? parseSelector(opts.labelSelector) : undefined;
    return this.objects.filter(
      (o) =>
        same(o, kind) &&
        (!opts.namespace || o.metadata.namespace === opts.namespace) &&
        (!selector || selector.matches(o.metadata.labels)),
    ) as T[];
  }
}

const same = (o: KubeObject, kind: KindRef<KubeObject>) => o.apiVersion === kind.apiVersion && o.kind === kind.kind;
const describe = (o: KubeObject) =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** a placeholder uid, stable for the same object, shaped like a UUID and unmistakably not one the API server made */
function placeholderUid(o: KubeObject): string {
  const h = createHash('sha256')
    .update(`${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)
    .digest('hex');
  return `00000000-0000-4000-8000-${h.slice(0, 12)}`;
}

// Offline there is nothing live to read: a fetch step that reaches for the client is a bug in it.
const offlineClient = new Proxy(
  {},
  { get: (_t, prop) => () => Promise.reject(new Error(`render: no cluster to call (${String(prop)})`)) },
) as ReadClient;

export async function renderObjects(
  input: readonly KubeObject[],
  opts: { operatorNamespace: string; now?: number },
): Promise<RenderOutcome[]> {
  const objects = input.map((o) =>
    o.metadata.uid ? o : { ...o, metadata: { ...o.metadata, uid: placeholderUid(o) } },
  );
  const out: RenderOutcome[] = [];
  for (const o of objects) {
    if (same(o, AIMServices)) out.push(await renderAimService(o as AIMService, objects, opts.operatorNamespace));
    else if (same(o, ModelDeployments)) out.push(...(await renderModelDeployment(o as ModelDeployment, objects, opts)));
    else if (o.kind === LlamaStackDistributions.kind && o.apiVersion.startsWith('llamastack.io/')) {
      const cr = (same(o, LlamaStackDistributions) ? o : toV1Alpha2(o as never)) as LlamaStackDistribution;
      out.push({
        source: describe(cr),
        ...(await renderLlamaStack(
          cr,
          new MemoryReader(objects.map(secretAsStored)),
          offlineClient,
          opts.operatorNamespace,
        )),
      });
    }
  }
  return out;
}

/** a Secret as the API server stores it: stringData merged into data (base64) */
function secretAsStored(o: KubeObject): KubeObject {
  const s = o as KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> };
  if (o.kind !== 'Secret' || !s.stringData) return o;
  const { stringData, ...rest } = s;
  const encoded = Object.fromEntries(
    Object.entries(stringData).map(([k, v]) => [k, Buffer.from(String(v)).toString('base64')]),
  );
  return { ...rest, data: { ...(s.data ?? {}), ...encoded } } as KubeObject;
}

/**
 * A model's templates come from discovery Jobs run on a cluster, so offline a model given without a status is
 * taken as Ready (what its service waits for on a cluster) and as one that expects no template and is served
 * from its image (docs/aim.md), unless the input also holds its templates, which selection then uses as the
 * controller would.
 */
function servedFromImageOffline(o: KubeObject, all: KubeObject[]): KubeObject {
  if (!(same(o, AIMModels) || same(o, AIMClusterModels)) || o.status !== undefined) return o;
  const hasTemplates = all.some(
    (t) =>
      (t.kind === 'AIMServiceTemplate' || t.kind === 'AIMClusterServiceTemplate') &&
      (t.spec as { modelName?: string } | undefined)?.modelName === o.metadata.name,
  );
  if (hasTemplates) return { ...o, status: { status: 'Ready' } };
  const condition = { type: 'ServiceTemplatesReady', status: 'True', reason: 'NoTemplatesExpected', message: '' };
  return { ...o, status: { status: 'Ready', conditions: [condition] } };
}

/** an AIMService's children; a service by image creates its AIMModel first, which is then rendered against */
async function renderAimService(svc: AIMService, all: KubeObject[], operatorNamespace: string): Promise<RenderOutcome> {
  const first = await renderAimServiceOnce(svc, all, operatorNamespace);
  const models = first.objects.filter((o) => same(o, AIMModels) || same(o, AIMClusterModels));
  if (models.length === 0 || first.objects.some((o) => o.kind === 'InferenceService')) return first;
  const second = await renderAimServiceOnce(svc, [...all, ...models], operatorNamespace);
  const isModel = (o: KubeObject) => models.some((m) => same(m, o) && m.metadata.name === o.metadata.name);
  return { ...second, objects: [...models, ...second.objects.filter((o) => !isModel(o))] };
}

async function renderAimServiceOnce(
  svc: AIMService,
  all: KubeObject[],
  operatorNamespace: string,
): Promise<RenderOutcome> {
  const reader = new MemoryReader(all.map((o) => servedFromImageOffline(o, all)));
  const outcome: RenderOutcome = { source: describe(svc), objects: [], problems: [] };
  const runtimeConfig = await fetchAimRuntimeConfig(svc, reader, operatorNamespace);
  const r = aimServiceReconciler;
  const fetched = await r.fetchRemoteState({
    object: svc,
    runtimeConfig,
    reader,
    client: offlineClient,
    log: SILENT_LOG,
  });
  const ctx = { object: svc, runtimeConfig };
  const obs = r.composeState!(ctx, fetched);
  for (const h of r.getComponentHealth?.(obs, ctx) ?? []) {
    // children "not existing yet" is all a downstream component can say offline
    if (!h || h.dependencyType === 'Downstream') continue;
    const problems = (h.errors ?? []).map((e) => (e instanceof Error ? e.message : String(e)));
    // waiting (Pending, Progressing) is normal offline; only what would fail or degrade the object is a problem
    const failed = h.state !== undefined && ['Failed', 'Degraded', 'NotAvailable'].includes(h.state);
    for (const p of problems.length ? problems : failed && h.message ? [h.message] : [])
      outcome.problems.push(`${h.component}: ${p}`);
  }
  if (runtimeConfig.hasError()) return outcome;
  const plan = r.planResources(ctx, obs);
  const propagators = aimServicePipeline({ operatorNamespace }).opts.labelPropagators ?? [];
  const rc = runtimeConfig.ok() ? runtimeConfig.value : undefined;
  for (const planned of plan.applies)
    outcome.objects.push(prepareForApply(planned, svc, propagators, { parent: svc, runtimeConfig: rc }));
  return outcome;
}

async function renderModelDeployment(
  input: ModelDeployment,
  all: KubeObject[],
  opts: { operatorNamespace: string; now?: number },
): Promise<RenderOutcome[]> {
  const md = defaultModelDeployment(input);
  const outcome: RenderOutcome = { source: describe(md), objects: [], problems: [] };
  const now = opts.now ?? Date.now();
  // the providers modelplane ships, as if each were running, plus any InferenceProviderConfig in the input
  const given = all.filter((o) => o.kind === 'InferenceProviderConfig') as InferenceProviderConfig[];
  const shipped = (Object.keys(BUILTIN_PROVIDER_DEFINITIONS) as Array<keyof typeof BUILTIN_PROVIDER_DEFINITIONS>)
    .filter((n) => !given.some((g) => g.metadata.name === n))
    .map(defaultProviderConfig);
  const providers = [...given, ...shipped].map((p) => ({
    ...p,
    status: { ready: true, lastHeartbeat: new Date(now).toISOString(), ...(p.status ?? {}) },
  }));
  const validation = validateModelDeployment(md, undefined, { providers });
  if (validation.errors.length > 0)
    return [{ ...outcome, problems: [`Validated: ${admissionMessage(validation.errors)}`] }];
  const selection = selectProvider(md, providers, { now });
  if (!selection.provider) return [{ ...outcome, problems: [`ProviderSelected: ${selection.message}`] }];
  outcome.problems.push(...selection.skippedRules.map((s) => `SelectionRuleSkipped: ${s.provider}: ${s.error}`));
  const def = (BUILTIN_PROVIDER_DEFINITIONS as Record<string, ProviderDefinition>)[selection.provider];
  if (!def)
    return [
      { ...outcome, problems: [`provider ${selection.provider} is not one modelplane ships: nothing to render`] },
    ];
  const incompatible = checkProviderCompatibility(def.name, md.spec);
  if (incompatible.length > 0) return [{ ...outcome, problems: [`ProviderCompatible: ${incompatible.join('; ')}`] }];
  try {
    const upstream = buildDesired(def, md);
    // spec.model.storage's managed PVCs and download Job first (the provider applies its own object once the
    // model is downloaded), then what the provider applies beside its upstream object (the llm-d provider's
    // Service), and its optional objects as on a cluster that serves their kinds (llm-d's InferencePool, as on
    // the dev cluster)
    if (def.storage !== false) outcome.objects.push(...storageObjects(md));
    outcome.objects.push(
      upstream,
      ...(def.extraObjects?.(md) ?? []),
      ...(def.optionalObjects ?? []).flatMap((o) => o.build(md) ?? []),
    );
    // the aim provider's AIMService is itself reconciled into an InferenceService and an HTTPRoute
    if (same(upstream, AIMServices)) {
      const svc = { ...upstream, metadata: { ...upstream.metadata, uid: placeholderUid(upstream) } } as AIMService;
      return [outcome, await renderAimService(svc, [...all, svc], opts.operatorNamespace)];
    }
  } catch (err) {
    outcome.problems.push(`ResourceCreated: ${(err as Error).message}`);
  }
  return [outcome];
}
