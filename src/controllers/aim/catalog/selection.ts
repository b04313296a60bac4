// Template selection for an AIMService that names no template (docs/aim.md, "Template selection"), as a
// pure function of the candidates, the service's wishes and the cluster's GPUs:
//   1. availability: only Ready templates;  2. optimization: only `optimized` unless allowUnoptimized;
//   3. the service's overrides (metric, precision, GPU model, GPU count);  4. the GPU is in the cluster;
//   5. namespaced templates over cluster ones;  6. preference: type, GPU, metric, precision;
//   7. a tie on every key is ambiguous: reported with the candidates named, never guessed.
import { normalizeGpuModel } from './gpu.ts';

export interface TemplateCandidate {
  name: string;
  scope: 'Namespace' | 'Cluster';
  status?: string | undefined;
  /** optimized | preview | unoptimized (from the discovered profile, else the spec); unknown = unoptimized */
  type?: string | undefined;
  gpuModel?: string | undefined;
  gpuCount?: number | undefined;
  metric?: string | undefined;
  precision?: string | undefined;
}

export interface SelectionInput {
  allowUnoptimized?: boolean | undefined;
  overrides?:
    | {
        metric?: string | undefined;
        precision?: string | undefined;
        gpuModel?: string | undefined;
        gpuCount?: number | undefined;
      }
    | undefined;
  /** GPU models present on the cluster's nodes */
  clusterGpus: ReadonlySet<string>;
}

export type SelectionResult =
  | { kind: 'selected'; candidate: TemplateCandidate }
  | { kind: 'none'; reason: 'TemplateNotFound' | 'TemplateNotReady' | 'NoMatchingTemplate'; message: string }
  | { kind: 'ambiguous'; reason: 'TemplateSelectionAmbiguous'; candidates: TemplateCandidate[]; message: string };

const TYPE_ORDER = ['optimized', 'preview', 'unoptimized'];
const GPU_ORDER = ['MI325X', 'MI300X', 'MI250X', 'MI210'];
const METRIC_ORDER = ['latency', 'throughput'];
const PRECISION_ORDER = ['fp4', 'int4', 'fp8', 'int8', 'fp16', 'bf16', 'fp32'];

/** position in `order` (lower is better); unknown values rank last */
function rank(order: readonly string[], value: string | undefined): number {
  const i = value === undefined ? -1 : order.findIndex((o) => o.toLowerCase() === value.toLowerCase());
  return i < 0 ? order.length : i;
}

function preferenceKey(c: TemplateCandidate): number[] {
  return [
    rank(TYPE_ORDER, c.type ?? 'unoptimized'),
    rank(GPU_ORDER, c.gpuModel ? normalizeGpuModel(c.gpuModel) : undefined),
    rank(METRIC_ORDER, c.metric),
    rank(PRECISION_ORDER, c.precision),
  ];
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

const eqi = (a: string | undefined, b: string | undefined) => (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

function matchesOverrides(c: TemplateCandidate, o: NonNullable<SelectionInput['overrides']>): boolean {
  if (o.metric && !eqi(o.metric, c.metric)) return false;
  if (o.precision && !eqi(o.precision, c.precision)) return false;
  if (o.gpuModel && c.gpuModel && normalizeGpuModel(o.gpuModel) !== normalizeGpuModel(c.gpuModel)) return false;
  if (o.gpuCount && c.gpuCount && o.gpuCount !== c.gpuCount) return false;
  return true;
}

const names = (cs: readonly TemplateCandidate[]) =>
  cs
    .map((c) => `${c.scope === 'Cluster' ? 'AIMClusterServiceTemplate' : 'AIMServiceTemplate'} ${c.name}`)
    .sort()
    .join(', ');

/** one filter step: keep what passes; when nothing does, say why with the ones it dropped */
function step(
  cs: TemplateCandidate[],
  keep: (c: TemplateCandidate) => boolean,
  why: string,
): { kept: TemplateCandidate[]; none?: SelectionResult } {
  const kept = cs.filter(keep);
  if (kept.length > 0) return { kept };
  return {
    kept,
    none: { kind: 'none', reason: 'NoMatchingTemplate', message: `no template ${why} (rejected: ${names(cs)})` },
  };
}

export function selectTemplate(candidates: readonly TemplateCandidate[], input: SelectionInput): SelectionResult {
  if (candidates.length === 0)
    return {
      kind: 'none',
      reason: 'TemplateNotFound',
      message: 'no AIMServiceTemplate or AIMClusterServiceTemplate exists for the model',
    };
  const ready = candidates.filter((c) => c.status === 'Ready');
  if (ready.length === 0)
    return {
      kind: 'none',
      reason: 'TemplateNotReady',
      message: `templates exist but none is Ready yet (${candidates.map((c) => `${c.name}: ${c.status ?? 'Pending'}`).join(', ')})`,
    };
  const steps: Array<[(c: TemplateCandidate) => boolean, string]> = [
    [
      (c) => input.allowUnoptimized === true || (c.type ?? 'unoptimized') === 'optimized',
      'is optimized (set spec.template.allowUnoptimized: true to allow the others)',
    ],
    [(c) => !input.overrides || matchesOverrides(c, input.overrides), 'matches spec.overrides'],
    [
      (c) => !c.gpuModel || input.clusterGpus.has(normalizeGpuModel(c.gpuModel)),
      `needs a GPU the cluster has (${[...input.clusterGpus].sort().join(', ') || 'none'})`,
    ],
  ];
  let cs = ready;
  for (const [keep, why] of steps) {
    const r = step(cs, keep, why);
    if (r.none) return r.none;
    cs = r.kept;
  }
  if (cs.some((c) => c.scope === 'Namespace')) cs = cs.filter((c) => c.scope === 'Namespace');
  const sorted = [...cs].sort((a, b) => compareKeys(preferenceKey(a), preferenceKey(b)));
  const best = sorted[0]!;
  const tied = sorted.filter((c) => compareKeys(preferenceKey(c), preferenceKey(best)) === 0);
  if (tied.length > 1) {
    return {
      kind: 'ambiguous',
      reason: 'TemplateSelectionAmbiguous',
      candidates: tied,
      message: `${tied.length} templates rank equally (${names(tied)}); name one in spec.template.name`,
    };
  }
  return { kind: 'selected', candidate: best };
}
