// The models catalog (docs/dashboard.md): the cluster's AIM models and model sources, each model with
// its service templates and, per template, the nodes whose GPUs it fits — judged by the AIM controller's own
// rule (gpuAvailability over each node's GPU labels), so the page and the controller never disagree. A
// "deploy" link carries the values the create form starts from. Pure over the dashboard's caches.
import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMHardware } from '../../apis/aim/index.ts';
import { gpuAvailability, hardwareSummary, nodeGpus } from '../../controllers/aim/catalog/gpu.ts';
import { keyOf } from './state.ts';
import { summaryOf } from './summary.ts';
import type { CatalogModel, CatalogView, DeployPrefill } from './types.ts';

type Loose = Record<string, any>;

const MODEL_KINDS = ['AIMModel', 'AIMClusterModel'];
const TEMPLATE_KINDS = ['AIMServiceTemplate', 'AIMClusterServiceTemplate'];
const SOURCE_KINDS = ['AIMClusterModelSource'];

export interface CatalogInputs {
  ofKind(kind: string): KubeObject[];
}

/** a DNS-1123 name for a ModelDeployment of this model (the form lets the person change it) */
export function deploymentName(model: string): string {
  const n = model
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return n || 'model';
}

function hardwareOf(t: KubeObject): AIMHardware | undefined {
  const t2 = t as Loose;
  return (t2.status?.resolvedHardware ?? t2.spec?.hardware) as AIMHardware | undefined;
}

function prefill(model: KubeObject, id: string, hardware: AIMHardware | undefined): DeployPrefill {
  const gpus = hardware?.gpu?.requests ?? (hardware?.gpu ? 1 : 0);
  return {
    // named after the model it serves (`Qwen/Qwen3-8B` → `qwen3-8b`), not the image's long name
    name: deploymentName(id.split('/').pop() || (model.metadata.name ?? '')),
    namespace: model.metadata.namespace ?? 'default',
    modelId: id,
    provider: 'aim',
    gpuCount: String(gpus),
    gpuType: 'amd.com/gpu',
  };
}

export function catalogView(s: CatalogInputs): CatalogView {
  const nodes = s.ofKind('Node').map((n) => ({
    name: n.metadata.name ?? '',
    gpus: [...nodeGpus(n.metadata.labels).keys()].sort(),
    labels: n.metadata.labels,
  }));
  const templates = TEMPLATE_KINDS.flatMap((k) => s.ofKind(k));
  const models: CatalogModel[] = MODEL_KINDS.flatMap((k) => s.ofKind(k)).map((m) => {
    const status = ((m as Loose).status ?? {}) as Loose;
    const id = String(
      status.imageMetadata?.model?.canonicalName ?? (m as Loose).spec?.modelSources?.[0]?.name ?? m.metadata.name,
    );
    const own = templates.filter(
      (t) =>
        (t as Loose).spec?.modelName === m.metadata.name &&
        // a namespaced template names a model of its namespace, a cluster template a cluster model
        (t.metadata.namespace ?? '') === (m.metadata.namespace ?? ''),
    );
    const rows = own
      .map((t) => {
        const hw = hardwareOf(t);
        const fits = nodes.filter((n) => gpuAvailability(hw, nodeGpus(n.labels)).state === 'Ready').map((n) => n.name);
        const summary = summaryOf(t);
        return {
          key: keyOf(t),
          name: t.metadata.name ?? '',
          hardware: hardwareSummary(hw),
          state: summary.state,
          tone: summary.tone,
          fits,
          deploy: prefill(m, id, hw),
        };
      })
      .sort((a, b) => b.fits.length - a.fits.length || a.name.localeCompare(b.name));
    const summary = summaryOf(m);
    const runnable = rows.find((r) => r.fits.length > 0);
    return {
      key: keyOf(m),
      kind: m.kind,
      namespace: m.metadata.namespace ?? '',
      name: m.metadata.name ?? '',
      modelId: id,
      image: String((m as Loose).spec?.image ?? ''),
      state: summary.state,
      tone: summary.tone,
      templates: rows,
      deploy: runnable?.deploy ?? prefill(m, id, undefined),
    };
  });
  const sources = SOURCE_KINDS.flatMap((k) => s.ofKind(k)).map((src) => {
    const summary = summaryOf(src);
    const st = ((src as Loose).status ?? {}) as Loose;
    return {
      key: keyOf(src),
      name: src.metadata.name ?? '',
      registry: String((src as Loose).spec?.registry ?? ''),
      state: summary.state,
      tone: summary.tone,
      models: typeof st.discoveredModels === 'number' ? st.discoveredModels : 0,
    };
  });
  return {
    nodes: nodes.map(({ name, gpus }) => ({ name, gpus })),
    models: models.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name)),
    sources,
  };
}
