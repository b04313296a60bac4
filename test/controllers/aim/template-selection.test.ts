// Template selection, all seven steps, as a table over the pure function.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type SelectionInput,
  selectTemplate,
  type TemplateCandidate,
} from '../../../src/controllers/aim/catalog/selection.ts';

const t = (name: string, over: Partial<TemplateCandidate> = {}): TemplateCandidate => ({
  name,
  scope: 'Namespace',
  status: 'Ready',
  type: 'optimized',
  gpuModel: 'MI300X',
  gpuCount: 1,
  metric: 'latency',
  precision: 'fp8',
  ...over,
});
const gpus = (...m: string[]) => new Set(m);
const base: SelectionInput = { clusterGpus: gpus('MI300X', 'MI325X') };

interface Case {
  name: string;
  candidates: TemplateCandidate[];
  input?: Partial<SelectionInput>;
  want: string | { none: string; match?: RegExp } | { ambiguous: string[] };
}

const cases: Case[] = [
  { name: 'no templates at all: TemplateNotFound', candidates: [], want: { none: 'TemplateNotFound' } },
  {
    name: '1 availability: only Ready templates',
    candidates: [t('pending', { status: 'Progressing' }), t('ready', { precision: 'fp16' })],
    want: 'ready',
  },
  {
    name: '1 availability: none Ready → TemplateNotReady naming their states',
    candidates: [t('a', { status: 'NotAvailable' })],
    want: { none: 'TemplateNotReady', match: /a: NotAvailable/ },
  },
  {
    name: '2 optimization: unoptimized and preview dropped by default',
    candidates: [
      t('unopt', { type: 'unoptimized', precision: 'fp4' }),
      t('prev', { type: 'preview' }),
      t('opt', { precision: 'bf16' }),
    ],
    want: 'opt',
  },
  {
    name: '2 optimization: nothing optimized → says how to allow the others',
    candidates: [t('unopt', { type: undefined })],
    want: { none: 'NoMatchingTemplate', match: /allowUnoptimized/ },
  },
  {
    name: '2 optimization: allowUnoptimized keeps them, type still ranks',
    candidates: [t('unopt', { type: 'unoptimized' }), t('prev', { type: 'preview' })],
    input: { allowUnoptimized: true },
    want: 'prev',
  },
  {
    name: '3 overrides: metric and precision (case-insensitive)',
    candidates: [t('lat'), t('thr', { metric: 'throughput', precision: 'FP16' })],
    input: { overrides: { metric: 'Throughput', precision: 'fp16' } },
    want: 'thr',
  },
  {
    name: '3 overrides: GPU model and count',
    candidates: [t('one'), t('two', { gpuCount: 2, gpuModel: 'MI325X' })],
    input: { overrides: { gpuModel: 'mi325x', gpuCount: 2 } },
    want: 'two',
  },
  {
    name: '3 overrides: nothing matches → names the rejected templates',
    candidates: [t('lat')],
    input: { overrides: { metric: 'throughput' } },
    want: { none: 'NoMatchingTemplate', match: /spec\.overrides.*AIMServiceTemplate lat/ },
  },
  {
    name: '4 GPU availability: a GPU not on any node is dropped',
    candidates: [t('mi355', { gpuModel: 'MI355X', precision: 'fp4' }), t('mi300')],
    want: 'mi300',
  },
  {
    name: '4 GPU availability: CPU templates (no GPU model) pass',
    candidates: [t('cpu', { gpuModel: undefined })],
    input: { clusterGpus: gpus() },
    want: 'cpu',
  },
  {
    name: '5 scope: namespaced beats a better-ranked cluster template',
    candidates: [t('cluster', { scope: 'Cluster', gpuModel: 'MI325X' }), t('ns', { precision: 'bf16' })],
    want: 'ns',
  },
  {
    name: '6 preference: GPU MI325X over MI300X',
    candidates: [t('mi300'), t('mi325', { gpuModel: 'MI325X' })],
    want: 'mi325',
  },
  {
    name: '6 preference: latency over throughput',
    candidates: [t('thr', { metric: 'throughput' }), t('lat')],
    want: 'lat',
  },
  {
    name: '6 preference: precision fp4 > int4 > fp8',
    candidates: [t('fp8'), t('int4', { precision: 'int4' }), t('fp16', { precision: 'fp16' })],
    want: 'int4',
  },
  {
    name: '7 tie on every key → ambiguous with both named',
    candidates: [t('b'), t('a'), t('worse', { precision: 'fp32' })],
    want: { ambiguous: ['a', 'b'] },
  },
  {
    name: '7 same keys in different scopes is no tie: the namespace wins',
    candidates: [t('a', { scope: 'Cluster' }), t('b')],
    want: 'b',
  },
];

describe('template selection', () => {
  for (const c of cases) {
    it(c.name, () => {
      const r = selectTemplate(c.candidates, { ...base, ...c.input });
      if (typeof c.want === 'string') {
        assert.equal(r.kind, 'selected', JSON.stringify(r));
        if (r.kind === 'selected') assert.equal(r.candidate.name, c.want);
      } else if ('ambiguous' in c.want) {
        assert.equal(r.kind, 'ambiguous');
        if (r.kind === 'ambiguous') {
          assert.deepEqual(r.candidates.map((x) => x.name).sort(), c.want.ambiguous);
          assert.equal(r.reason, 'TemplateSelectionAmbiguous');
          for (const n of c.want.ambiguous) assert.match(r.message, new RegExp(`AIMServiceTemplate ${n}`));
        }
      } else {
        assert.equal(r.kind, 'none', JSON.stringify(r));
        if (r.kind === 'none') {
          assert.equal(r.reason, c.want.none);
          if (c.want.match) assert.match(r.message, c.want.match);
        }
      }
    });
  }
});
