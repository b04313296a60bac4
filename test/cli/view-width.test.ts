// The live table at the widths people use (80 and 160 columns) with the names `npm start` really creates:
// every line fits one row, state and age always show, long generated names are cut from the middle, and
// failing rows come first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnWidths, middle, renderRows } from '../../src/cli/view/render.ts';
import { type ResourceRow, sortRows, toneOf } from '../../src/cli/view/rows.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const row = (kind: string, name: string, state: string, reason: string, ready = true, ns = 'quickstart') => ({
  kind,
  group: 'x',
  namespace: ns,
  name,
  state,
  reason,
  ready,
  tone: toneOf(ready, state, reason),
  createdAt: '2026-01-01T00:48:00Z',
});

/** the quickstart's objects as `modelplane dev` shows them once Ready, plus one failing */
const QUICKSTART: ResourceRow[] = [
  row('ModelDeployment', 'gemma-cpu', 'Running', 'DeploymentReady'),
  row('ModelDeployment', 'qwen-llmd', 'Running', 'DeploymentReady'),
  row('AIMService', 'llama-chat', 'Running', 'AllComponentsReady'),
  row('LlamaStackDistribution', 'llama-stack', 'Ready', 'DeploymentReady'),
  row('VariantAutoscaling', 'qwen-llmd-decode', 'Ready', 'OptimizationSucceeded'),
  row('InferenceProviderConfig', 'kuberay', 'Ready', '', true, ''),
  row('AIMArtifact', 'hf-meta-llama-llama-3-1-8b-instruct-1fdf1a7526', 'Ready', 'AllComponentsReady'),
  row('AIMServiceTemplate', 'aim-meta-llama-llama-3-1-8b-instruct-0-8-1x-mi300x-lat-fp8-9192', 'Ready', 'Ready'),
  row(
    'AIMServiceTemplate',
    'aim-meta-llama-llama-3-1-8b-instruct-0-8-1x-mi355x-lat-fp4-1968',
    'NotAvailable',
    'GPUNotAvailable',
    false,
  ),
  row('ModelDeployment', 'qwen-2gpu', 'Failed', 'ProviderSelectionFailed: no provider can serve 2 GPUs', false),
];

/** the visible text of a line: the symbol, then the columns split on runs of two or more spaces */
const columns = (line: string) => line.slice(2).trim().split(/ {2,}/);

describe('the live table at 80 and 160 columns', () => {
  for (const width of [80, 160]) {
    it(`${width} columns: every line fits, state and age show on every row`, () => {
      const lines = renderRows(sortRows([...QUICKSTART]), { width, now: NOW });
      assert.equal(lines.length, QUICKSTART.length);
      for (const line of lines) {
        assert.ok([...line].length <= width, `${[...line].length} > ${width}: ${line}`);
        assert.match(line, / 12m$/, `age at the end: ${line}`);
      }
      const byName = new Map(lines.map((l) => [columns(l)[1], columns(l)]));
      const failing = columns(lines[0]!);
      assert.equal(failing[0], 'ModelDeployment', 'the failing row is pinned first');
      assert.equal(failing[1], 'quickstart/qwen-2gpu');
      assert.equal(failing[2], 'Failed');
      assert.ok(failing[3]!.replace('…', '').length >= 15, `the reason keeps room: ${failing[3]}`);
      assert.ok('ProviderSelectionFailed: no provider can serve 2 GPUs'.startsWith(failing[3]!.replace('…', '')));
      assert.equal(lines[0]![0], '✗');
      const idle = lines.find((l) => l.includes('NotAvailable'))!;
      assert.equal(idle[0], '·', 'a template for a GPU no node has is idle, not in progress');
      assert.deepEqual(byName.get('quickstart/gemma-cpu')?.slice(2), ['Running', 'DeploymentReady', '12m']);
    });
  }

  it('80 columns: the long template name is cut from the middle, keeping its start and its hash', () => {
    const lines = renderRows(sortRows([...QUICKSTART]), { width: 80, now: NOW });
    const tpl = columns(lines.find((l) => l.includes('fp4-1968'))!);
    assert.ok(tpl[1]!.includes('…'), tpl[1]);
    assert.ok(tpl[1]!.startsWith('qu') && tpl[1]!.includes('/aim-meta'), tpl[1]);
    assert.ok(tpl[1]!.endsWith('fp4-1968'), tpl[1]);
    assert.equal(tpl[2], 'NotAvailable');
    assert.ok('GPUNotAvailable'.startsWith(tpl[3]!.replace('…', '')), tpl[3]);
    const kinds = lines.map((l) => columns(l)[0]);
    assert.ok(kinds.includes('LlamaStackDist…'), `a long kind keeps its start: ${kinds}`);
    const va = columns(lines.find((l) => l.includes('qwen-llmd-decode'))!);
    assert.equal(va[1], 'quicks…/qwen-llmd-decode', 'the namespace gives way before the name');
  });

  it('160 columns: nothing is cut', () => {
    const lines = renderRows(sortRows([...QUICKSTART]), { width: 160, now: NOW });
    assert.ok(
      lines.some((l) => l.includes('quickstart/aim-meta-llama-llama-3-1-8b-instruct-0-8-1x-mi355x-lat-fp4-1968')),
    );
    assert.ok(lines.some((l) => l.includes('InferenceProviderConfig  kuberay')));
    assert.ok(
      lines.slice(1).every((l) => !l.includes('…')),
      lines.join('\n'),
    );
  });

  it('column widths never squeeze state or age, whatever the names', () => {
    for (const width of [60, 80, 100, 120, 200]) {
      for (const natural of [
        [23, 75, 12, 60, 3],
        [10, 10, 7, 2, 3],
        [200, 300, 14, 500, 4],
      ]) {
        const w = columnWidths(natural, width);
        assert.equal(w[2], Math.min(natural[2]!, 14));
        assert.equal(w[4], natural[4]);
        const total = 2 + w.reduce((a, b) => a + b, 0) + 8;
        if (width >= 60) assert.ok(total <= Math.max(width, 2 + 16 + 16 + 14 + 4 + 8), `${width} ${natural}: ${w}`);
        assert.ok(w.every((x) => x >= 0));
      }
    }
  });

  it('middle keeps both ends', () => {
    assert.equal(middle('abcdefghij', 5), 'ab…ij');
    assert.equal(middle('abc', 5), 'abc');
    assert.equal(middle('abcdef', 1), 'a');
  });
});
