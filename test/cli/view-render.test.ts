// The terminal views' text, pure: rows from objects, the aligned table, plain change lines, progress,
// readable log lines, and the live region's redraw protocol on a fake terminal.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { renderStatus } from '../../src/cli/status/command.ts';
import { formatLogLine, LogRouter } from '../../src/cli/view/logs.ts';
import { renderChange, renderProgress, renderRows, renderWaitingSummary } from '../../src/cli/view/render.ts';
import { type ResourceRow, rowOf, sortRows } from '../../src/cli/view/rows.ts';
import { TerminalView } from '../../src/cli/view/terminal.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const md = (name: string, status: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: 'team-a', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
    status,
  }) as KubeObject;
const readyCond = (status: string, reason: string) => ({
  observedGeneration: 1,
  conditions: [{ type: 'Ready', status, reason }],
});

class FakeTerminal {
  written = '';
  isTTY: boolean;
  columns = 60;
  rows = 10;
  constructor(tty: boolean) {
    this.isTTY = tty;
  }
  write(s: string): boolean {
    this.written += s;
    return true;
  }
}
/** the quickstart's HPA before the autoscaler published its first desired replicas */
const hpa = (creationTimestamp: string): KubeObject =>
  ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'qwen-autoscaled', namespace: 'quickstart', creationTimestamp },
    status: {
      conditions: [
        { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale' },
        { type: 'ScalingActive', status: 'False', reason: 'FailedGetExternalMetric' },
      ],
    },
  }) as KubeObject;
const term = (tty: boolean) => new FakeTerminal(tty) as FakeTerminal & NodeJS.WriteStream;

describe('rows', () => {
  const cases: Array<[string, KubeObject, Partial<ResourceRow>]> = [
    [
      'Ready condition True',
      md('a', { phase: 'Running', ...readyCond('True', 'DeploymentReady') }),
      { ready: true, tone: 'ok', state: 'Running', reason: 'DeploymentReady' },
    ],
    [
      'progressing',
      md('b', { phase: 'Deploying', ...readyCond('False', 'DeploymentInProgress') }),
      { ready: false, tone: 'progress', state: 'Deploying' },
    ],
    [
      'failing',
      md('c', { phase: 'Failed', ...readyCond('False', 'ProviderSelectionFailed') }),
      { ready: false, tone: 'fail' },
    ],
    [
      'Running but not yet routed through the Gateway',
      md('g', {
        phase: 'Running',
        observedGeneration: 1,
        conditions: [
          { type: 'Ready', status: 'True', reason: 'DeploymentReady' },
          { type: 'GatewayReady', status: 'Unknown', reason: 'HTTPRoutePending' },
        ],
      }),
      { ready: false, state: 'Routing', reason: 'GatewayReady: HTTPRoutePending' },
    ],
    [
      'Running with the gateway turned off',
      md('h', {
        phase: 'Running',
        observedGeneration: 1,
        conditions: [
          { type: 'Ready', status: 'True', reason: 'DeploymentReady' },
          { type: 'GatewayReady', status: 'False', reason: 'GatewayDisabled' },
        ],
      }),
      { ready: true, state: 'Running' },
    ],
    ['no status', md('d', {}), { ready: false, tone: 'progress', state: 'Pending', reason: 'no status reported yet' }],
    [
      'stale observedGeneration is not Ready',
      {
        ...md('e', { phase: 'Running', ...readyCond('True', 'DeploymentReady') }),
        metadata: { name: 'e', namespace: 'team-a', generation: 2 },
      },
      { ready: false },
    ],
    [
      'provider with a fresh heartbeat',
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'InferenceProviderConfig',
        metadata: { name: 'kaito' },
        status: { ready: true, lastHeartbeat: new Date().toISOString() },
      },
      { ready: true, state: 'Ready', group: 'kubeairunway.ai' },
    ],
    [
      'a ConfigMap is done once it exists',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' } },
      { ready: true, state: 'Created' },
    ],
    [
      'an HTTPRoute accepted by its gateway',
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'r' },
        status: { parents: [{ conditions: [{ type: 'Accepted', status: 'True' }] }] },
      },
      { ready: true, state: 'Accepted' },
    ],
    [
      'an HTTPRoute refused',
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'r' },
        status: { parents: [{ conditions: [{ type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners' }] }] },
      },
      { ready: false, tone: 'fail', reason: 'NotAllowedByListeners' },
    ],
    [
      'status.state word (KAITO Workspace)',
      { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'w' }, status: { state: 'Ready' } },
      { ready: true, state: 'Ready' },
    ],
    [
      'conditions but no Ready one: all good',
      {
        apiVersion: 'llmd.ai/v1alpha1',
        kind: 'VariantAutoscaling',
        metadata: { name: 'v' },
        status: {
          conditions: [
            { type: 'TargetResolved', status: 'True', reason: 'TargetFound' },
            { type: 'OptimizationReady', status: 'True', reason: 'OptimizationSucceeded' },
          ],
        },
      },
      { ready: true, state: 'Ready', reason: 'OptimizationSucceeded' },
    ],
    [
      'conditions but no Ready one: the first bad one',
      {
        apiVersion: 'llmd.ai/v1alpha1',
        kind: 'VariantAutoscaling',
        metadata: { name: 'v' },
        status: {
          conditions: [
            { type: 'TargetResolved', status: 'True' },
            { type: 'MetricsAvailable', status: 'False', reason: 'MetricsMissing' },
          ],
        },
      },
      { ready: false, state: 'NotReady', reason: 'MetricsAvailable: MetricsMissing', tone: 'fail' },
    ],
    [
      "a new HPA whose metric is not published yet waits for it; an old one's missing metric is a failure",
      hpa(new Date(Date.now() - 5_000).toISOString()),
      { ready: false, state: 'NotReady', reason: 'ScalingActive: FailedGetExternalMetric', tone: 'progress' },
    ],
    [
      'an HPA whose metric has been missing past its first minute fails',
      hpa('2020-01-01T00:00:00Z'),
      { ready: false, state: 'NotReady', reason: 'ScalingActive: FailedGetExternalMetric', tone: 'fail' },
    ],
    [
      'an Unknown condition is a wait, even when its reason names what is missing',
      {
        apiVersion: 'llmd.ai/v1alpha1',
        kind: 'VariantAutoscaling',
        metadata: { name: 'v' },
        status: {
          conditions: [
            { type: 'TargetResolved', status: 'True' },
            { type: 'MetricsAvailable', status: 'Unknown', reason: 'MetricsMissing' },
          ],
        },
      },
      { ready: false, state: 'Progressing', reason: 'MetricsAvailable: MetricsMissing', tone: 'progress' },
    ],
    [
      'an abnormal-true condition counts against',
      {
        apiVersion: 'x/v1',
        kind: 'Thing',
        metadata: { name: 't' },
        status: { conditions: [{ type: 'Degraded', status: 'True', reason: 'Broken' }] },
      },
      { ready: false },
    ],
    [
      'provider whose process died',
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'InferenceProviderConfig',
        metadata: { name: 'kaito' },
        status: { ready: true, lastHeartbeat: '2020-01-01T00:00:00Z' },
      },
      { ready: false, tone: 'progress' },
    ],
    [
      "Dynamo's successful is done, not in progress",
      {
        apiVersion: 'nvidia.com/v1alpha1',
        kind: 'DynamoGraphDeployment',
        metadata: { name: 'd', namespace: 'q', generation: 1 },
        status: {
          observedGeneration: 1,
          state: 'successful',
          conditions: [{ type: 'Ready', status: 'True', reason: 'all_resources_are_ready' }],
        },
      },
      { ready: true, tone: 'ok', state: 'successful' },
    ],
    [
      'a template for a GPU no node has is idle, neither failing nor in progress',
      {
        apiVersion: 'aim.eai.amd.com/v1alpha1',
        kind: 'AIMServiceTemplate',
        metadata: { name: 't', namespace: 'q', generation: 1 },
        status: {
          observedGeneration: 1,
          status: 'NotAvailable',
          conditions: [{ type: 'Ready', status: 'False', reason: 'GPUNotAvailable' }],
        },
      },
      { ready: false, tone: 'idle', state: 'NotAvailable' },
    ],
  ];
  /** an HPA that computed a count from its metric, clamped to min/max (limited) or not */
  const scaling = (limited: 'True' | 'False', reason: string): KubeObject =>
    ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', namespace: 'q', creationTimestamp: '2026-01-01T00:00:00Z' },
      status: {
        conditions: [
          { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' },
          { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound' },
          { type: 'ScalingLimited', status: limited, reason },
        ],
      },
    }) as KubeObject;
  cases.push(
    ['an HPA whose desired count is within range is ready', scaling('False', 'DesiredWithinRange'), { ready: true }],
    ['an HPA held at minReplicas is ready too', scaling('True', 'TooFewReplicas'), { ready: true }],
  );
  for (const [name, obj, want] of cases) {
    it(name, () => {
      const row = rowOf(obj);
      for (const [k, v] of Object.entries(want))
        assert.equal(row[k as keyof ResourceRow], v, `${k} of ${JSON.stringify(row)}`);
    });
  }

  it('sorts primary kinds first, then other modelplane kinds, then everything else', () => {
    const rows = sortRows([
      rowOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', namespace: 'a' } }),
      rowOf({ apiVersion: 'aim.eai.amd.com/v1alpha1', kind: 'AIMModel', metadata: { name: 'm', namespace: 'a' } }),
      rowOf({ apiVersion: 'aim.eai.amd.com/v1alpha1', kind: 'AIMService', metadata: { name: 's', namespace: 'a' } }),
      rowOf(md('z', {})),
    ]);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['ModelDeployment', 'AIMService', 'AIMModel', 'Deployment'],
    );
  });
});

describe('renderRows', () => {
  const rows = [
    rowOf(md('gemma-cpu', { phase: 'Running', ...readyCond('True', 'DeploymentReady') })),
    rowOf(md('llama', { phase: 'Deploying', ...readyCond('False', 'DeploymentInProgress') })),
  ];

  it('one aligned line per resource: symbol, kind, namespace/name, state, reason, age', () => {
    const lines = renderRows(rows, { now: NOW });
    assert.deepEqual(lines, [
      '✓ ModelDeployment  team-a/gemma-cpu  Running    DeploymentReady       10m',
      '… ModelDeployment  team-a/llama      Deploying  DeploymentInProgress  10m',
    ]);
  });

  it('fits a narrow terminal: the reason gives way, the age stays, no line is longer than the width', () => {
    const lines = renderRows(rows, { now: NOW, width: 64 });
    for (const l of lines) assert.ok(l.length <= 64, `${l.length}: ${l}`);
    assert.match(lines[1]!, /Deploying {2}Deployment… {2}10m$/);
  });

  it('colours only the symbol', () => {
    const [line] = renderRows(rows.slice(0, 1), { now: NOW, color: true });
    assert.equal(line, `\x1b[32m✓\x1b[0m ModelDeployment  team-a/gemma-cpu  Running  DeploymentReady  10m`);
  });

  it('plain change lines name the kind, object, state and reason', () => {
    assert.equal(renderChange(rows[1]!), 'ModelDeployment team-a/llama: Deploying (DeploymentInProgress)');
    assert.equal(
      renderChange(
        rowOf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'q' }, status: { phase: 'Active' } }),
      ),
      'Namespace q: Active',
    );
  });

  it('progress: what is still awaited, the elapsed time and the limit; a summary naming the laggards', () => {
    assert.equal(
      renderProgress({ ready: 1, total: 3, elapsedMs: 12_400, timeoutMs: 120_000, frame: 0 }),
      '⠋ waiting for 2 of 3 resources to be Ready · 12s (gives up at 120s)',
    );
    assert.equal(renderProgress({ ready: 3, total: 3, elapsedMs: 4_000 }), '✓ all 3 Ready · 4s');
    assert.equal(
      renderProgress({ ready: 0, total: 1, elapsedMs: 0, timeoutMs: Number.POSITIVE_INFINITY }),
      '… waiting for 1 of 1 resources to be Ready · 0s',
    );
    assert.equal(
      renderWaitingSummary(rows, 30_000),
      'still waiting after 30s for 1 of 2: ModelDeployment team-a/llama (Deploying: DeploymentInProgress)',
    );
  });

  it('status: the rows, or a sentence when there are none, and what the credentials could not list', () => {
    assert.equal(
      renderStatus({ rows: [], forbidden: [] }, 'team-a'),
      'No modelplane resources found in namespace team-a.\n',
    );
    const text = renderStatus({ rows: rows.slice(0, 1), forbidden: ['variantautoscalings.llmd.ai'] }, undefined, {
      now: NOW,
    });
    assert.equal(
      text,
      '✓ ModelDeployment  team-a/gemma-cpu  Running  DeploymentReady  10m\n(not allowed to list variantautoscalings.llmd.ai with these credentials)\n',
    );
  });
});

describe('log files', () => {
  it('one file per run, named after the command and its start; older runs beyond the limit are removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelplane-logs-'));
    try {
      for (let i = 0; i < 5; i++) writeFileSync(join(dir, `dev-2026-01-01T00-00-0${i}.jsonl`), '');
      writeFileSync(join(dir, 'other.txt'), '');
      const shown: string[] = [];
      const router = new LogRouter({
        dir,
        command: 'dev',
        verbose: false,
        keep: 2,
        show: (l) => shown.push(l),
        now: new Date('2026-01-02T00:00:00Z'),
        width: () => 40,
      });
      router.write(`${JSON.stringify({ ts: '2026-01-02T00:00:00Z', level: 'info', msg: 'quiet' })}\n`);
      router.write(`${JSON.stringify({ ts: '2026-01-02T00:00:01Z', level: 'error', msg: 'loud' })}\n`);
      router.write(`${JSON.stringify({ ts: '2026-01-02T00:00:02Z', level: 'warn', msg: 'x'.repeat(100) })}\n`);
      await router.close();
      assert.deepEqual(readdirSync(dir).sort(), [
        'dev-2026-01-01T00-00-03.jsonl',
        'dev-2026-01-01T00-00-04.jsonl',
        'dev-2026-01-02T00-00-00.jsonl',
        'other.txt',
      ]);
      assert.equal(readFileSync(router.path, 'utf8').trim().split('\n').length, 3, 'the file gets every line');
      assert.deepEqual(
        shown,
        ['00:00:01 ERROR loud', `00:00:02 WARN  ${'x'.repeat(19)}…`],
        'the terminal only warnings and errors, readable, each cut to the width less room for a count',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('formatLogLine', () => {
  it('one readable line: time, level, who, message, fields', () => {
    const line = JSON.stringify({
      ts: '2026-01-01T12:34:56.789Z',
      level: 'warn',
      msg: 'reconcile failed',
      controller: 'modeldeployment',
      key: 'a/b',
      error: { name: 'Error', message: 'boom now' },
      attempt: 3,
    });
    assert.equal(
      formatLogLine(line),
      '12:34:56 WARN  modeldeployment: reconcile failed key=a/b error="boom now" attempt=3',
    );
  });
  it('the reconcile ID is left to the file; a repeat of the same message has the same key', async () => {
    const { repeatKey } = await import('../../src/cli/view/logs.ts');
    const line = (id: string, ts: string) =>
      JSON.stringify({
        ts,
        level: 'error',
        msg: 'condition Ready=False (X)',
        controller: 'c',
        object: 'a/b',
        reconcileID: id,
      });
    assert.equal(
      formatLogLine(line('r1', '2026-01-01T00:00:00Z')),
      '00:00:00 ERROR c: condition Ready=False (X) object=a/b',
    );
    assert.equal(repeatKey(line('r1', '2026-01-01T00:00:00Z')), repeatKey(line('r2', '2026-01-01T00:00:09Z')));
    assert.notEqual(
      repeatKey(line('r1', '2026-01-01T00:00:00Z')),
      repeatKey(line('r1', '2026-01-01T00:00:00Z').replace('a/b', 'a/c')),
    );
  });
  it('coloured: the level is painted after cutting, so the visible text is the width', () => {
    const line = JSON.stringify({ ts: '2026-01-01T00:00:00Z', level: 'warn', msg: 'y'.repeat(80) });
    const shown = formatLogLine(line, { color: true, width: 30 });
    assert.equal(shown.replace(/\x1b\[[0-9;]*m/g, '').length, 30);
    assert.ok(shown.startsWith('00:00:00 \x1b[33mWARN '), JSON.stringify(shown));
  });
  it('text that is not JSON passes through', () => {
    assert.equal(formatLogLine('garbage collector: indexing x\n'), 'garbage collector: indexing x');
  });
});

describe('TerminalView', () => {
  const rowsA = [rowOf(md('a', { phase: 'Deploying', ...readyCond('False', 'DeploymentInProgress') }))];
  const rowsB = [rowOf(md('a', { phase: 'Running', ...readyCond('True', 'DeploymentReady') }))];

  it('plain output prints a line only when a resource changes', () => {
    const out = term(false);
    const view = new TerminalView(out);
    view.update({ rows: rowsA });
    view.update({ rows: rowsA });
    view.update({ rows: rowsB });
    view.print('hello');
    assert.equal(
      out.written,
      'ModelDeployment team-a/a: Deploying (DeploymentInProgress)\nModelDeployment team-a/a: Running (DeploymentReady)\nhello\n',
    );
  });

  it('plain output reports a long wait every interval', () => {
    const out = term(false);
    const view = new TerminalView(out, { plainProgressEveryMs: 10_000 });
    for (const elapsedMs of [0, 5_000, 10_000, 15_000, 20_000])
      view.update({ rows: rowsA, progress: { ready: 0, total: 1, elapsedMs } });
    assert.equal(out.written.match(/still waiting/g)?.length, 2);
  });

  it('a terminal gets the region redrawn in place, and printed lines go above it', async () => {
    const out = term(true);
    const view = new TerminalView(out);
    view.update({ rows: rowsA, progress: { ready: 0, total: 1, elapsedMs: 0 } });
    await new Promise((r) => setTimeout(r, 60));
    assert.match(out.written, /ModelDeployment {2}team-a\/a {2}Deploying/);
    assert.doesNotMatch(out.written, /\x1b\[\d+A/, 'nothing to erase on the first draw');
    out.written = '';
    view.print('WARN something');
    // erase the 2-line region (row + progress), print the line, redraw the region under it
    assert.ok(out.written.startsWith('\x1b[2A\x1b[0JWARN something\n'), JSON.stringify(out.written));
    assert.match(out.written, /Deploying/);
    out.written = '';
    view.update({ rows: rowsB });
    await new Promise((r) => setTimeout(r, 60));
    view.stop();
    assert.ok(out.written.startsWith('\x1b[2A\x1b[0J'), JSON.stringify(out.written));
    assert.match(out.written, /Running/);
  });

  it('a repeated line is counted in place on a terminal (×N), not printed again', async () => {
    const out = term(true);
    const view = new TerminalView(out);
    view.update({ rows: rowsA });
    await new Promise((r) => setTimeout(r, 60));
    out.written = '';
    for (let i = 0; i < 7; i++) view.print('ERROR same thing', 'k');
    view.print('WARN other', 'k2');
    view.stop();
    assert.equal(out.written.match(/ERROR same thing\n/g)?.length, 1, 'printed once as a new line');
    assert.match(out.written, /\x1b\[1A\x1b\[2KERROR same thing ×7\n/, 'then rewritten with its count');
    assert.doesNotMatch(out.written, /×8/);
    assert.match(out.written, /WARN other\n/);
  });

  it('plain output says how often the last line came again, once the run ends', () => {
    const out = term(false);
    const view = new TerminalView(out);
    for (let i = 0; i < 3; i++) view.print('ERROR same', 'k');
    view.print('next', 'k2');
    assert.equal(out.written, 'ERROR same\n  (the line above came 2 more times)\nnext\n');
  });

  it('the waiting summary names only the awaited rows', () => {
    const out = term(false);
    const view = new TerminalView(out, { plainProgressEveryMs: 1 });
    const idle = rowOf({
      ...md('tpl', {}),
      kind: 'AIMServiceTemplate',
      status: { status: 'NotAvailable' },
    } as KubeObject);
    view.update({ rows: [...rowsA, idle], awaited: rowsA, progress: { ready: 0, total: 1, elapsedMs: 5 } });
    const summary = out.written.split('\n').find((l) => l.startsWith('still waiting'))!;
    assert.match(summary, /for 1 of 1: ModelDeployment team-a\/a/);
    assert.doesNotMatch(summary, /tpl/);
  });

  it('a region taller than the screen is cut, saying how many are hidden', async () => {
    const out = term(true);
    const view = new TerminalView(out);
    const many = Array.from({ length: 30 }, (_, i) => rowOf(md(`m${String(i).padStart(2, '0')}`, {})));
    view.update({ rows: many });
    await new Promise((r) => setTimeout(r, 60));
    view.stop();
    const lines = out.written.split('\x1b[0J').at(-1)!.trimEnd().split('\n');
    assert.ok(lines.length <= out.rows, `${lines.length} lines`);
    assert.match(lines.at(-1)!, /… and 24 more \(modelplane status lists them all\)/);
  });
});
