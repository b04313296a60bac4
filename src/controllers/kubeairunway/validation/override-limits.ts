// Overrides may not ask for more than spec itself may: a replica, GPU, CPU or memory count anywhere in
// spec.provider.overrides (typed or not, at any depth, inside lists too, whatever the key's case) is held
// to the same ceilings as spec.scaling and spec.resources. Otherwise `overrides.spec.services.X.replicas`
// or `frontend.replicas` would bypass the limits the webhook enforces on spec (docs/kubeairunway.md).
import { parseQuantity, type Quantity } from '@modelplane/apimachinery/quantity';
import * as m from './messages.ts';
import type { ValidationIssue } from './types.ts';

type Size = 'replicas' | 'gpu' | 'cpu' | 'memory';

const COUNT_LIKE = /^(count|min|max|value|limit|request)$|count$/i;
const MAX_CPU = parseQuantity(m.MAX_CPU);
const MAX_MEMORY = parseQuantity(m.MAX_MEMORY);

/** what a key counts, from its spelling: `replicas`, `minReplicas`, `num_replicas`, `nodeCount`, `nvidia.com/gpu`, … */
function sizeOf(key: string): Size | undefined {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  if (k.endsWith('replicas') || k === 'nodecount') return 'replicas';
  if (k.includes('gpu')) return 'gpu';
  if (k === 'cpu' || k.endsWith('/cpu')) return 'cpu';
  if (k === 'memory' || k.endsWith('/memory')) return 'memory';
  return undefined;
}

function asQuantity(value: unknown): Quantity | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  try {
    return parseQuantity(String(value));
  } catch {
    return undefined; // not a size at all: the type checks (or the upstream API) say so
  }
}

function exceeds(size: Size, q: Quantity): string | undefined {
  switch (size) {
    case 'replicas':
      return q.cmp(parseQuantity(String(m.MAX_REPLICAS))) > 0 ? `${m.MAX_REPLICAS}` : undefined;
    case 'gpu':
      return q.cmp(parseQuantity(String(m.MAX_GPU_COUNT))) > 0 ? `${m.MAX_GPU_COUNT}` : undefined;
    case 'cpu':
      return q.cmp(MAX_CPU) > 0 ? m.MAX_CPU : undefined;
    case 'memory':
      return q.cmp(MAX_MEMORY) > 0 ? m.MAX_MEMORY : undefined;
  }
}

const WHERE: Readonly<Record<Size, string>> = {
  replicas: 'spec.scaling',
  gpu: 'spec.resources.gpu (or spec.scaling.prefill/decode.gpu)',
  cpu: 'spec.resources.cpu',
  memory: 'spec.resources.memory',
};

/**
 * Every size under `value` above its ceiling, as an error naming the path. `within` is the size a parent
 * key named (`gpu: {count: 100}` counts GPUs), so nested forms are held to the same ceiling.
 */
export function findOversizedOverrides(
  value: unknown,
  path: string,
  out: ValidationIssue[] = [],
  within?: Size,
): ValidationIssue[] {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) findOversizedOverrides(value[i], `${path}[${i}]`, out, within);
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    // a size key's count-like leaves count what it names (`gpu: {count: 100}`, `replicas: {max: 40}`)
    for (const [key, child] of Object.entries(value))
      findOversizedOverrides(child, `${path}.${key}`, out, sizeOf(key) ?? (COUNT_LIKE.test(key) ? within : undefined));
    return out;
  }
  if (!within) return out;
  const q = asQuantity(value);
  const max = q && exceeds(within, q);
  if (max)
    out.push({
      field: path,
      message: `${m.exceedsMaximum(path, String(value), max)}: overrides may not ask for more than ${WHERE[within]} may; set it there`,
    });
  return out;
}
