// The sync plan (compatibility → overrides → transform → the object already there → apply) and the
// status the provider owns for each outcome: phases, the three conditions and their reasons, messages,
// lastTransitionTime kept across unchanged reconciles, and "no change → nothing to write".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepEqual, type KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import type { ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import { buildDesired } from '../../../src/controllers/kubeairunway/provider/desired.ts';
import type { UpstreamView } from '../../../src/controllers/kubeairunway/provider/lifecycle.ts';
import { planSync } from '../../../src/controllers/kubeairunway/provider/plan.ts';
import {
  computeProviderStatus,
  type ProviderStatus,
  type StatusOutcome,
} from '../../../src/controllers/kubeairunway/provider/status.ts';
import { shouldReport } from '../../../src/engine/index.ts';
import { testKaito, testWidgets } from './provider-helpers.ts';

const widgets = testWidgets as ProviderDefinition;
const kaito = testKaito as ProviderDefinition;

function md(spec: Partial<ModelDeployment['spec']> = {}): ModelDeployment {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'llm', namespace: 'team', uid: 'u-1', generation: 3 },
    spec: { model: { id: 'org/model' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, ...spec },
  };
}

const ours = (def: ProviderDefinition, m: ModelDeployment, meta: Partial<KubeObject['metadata']> = {}): KubeObject => {
  const d = buildDesired(def, m);
  return { ...d, metadata: { ...d.metadata, uid: 'w-1', ...meta } };
};
const foreign: KubeObject = {
  apiVersion: 'test.modelplane.io/v1',
  kind: 'Widget',
  metadata: { name: 'llm', namespace: 'team', uid: 'f-1' },
};
const present = (object: KubeObject): UpstreamView => ({ state: 'present', object });

describe('planSync', () => {
  const cases: Array<[string, ProviderDefinition, ModelDeployment, UpstreamView, Record<string, unknown>]> = [
    [
      "KAITO with sglang → incompatible, docs/kubeairunway.md's message",
      kaito,
      md({ engine: { type: 'sglang' } }),
      { state: 'absent' },
      { kind: 'incompatible', messages: ['KAITO does not support sglang engine'] },
    ],
    [
      'KAITO disaggregated → incompatible',
      kaito,
      md({
        serving: { mode: 'disaggregated' },
        resources: {},
        scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
      }),
      { state: 'absent' },
      { kind: 'incompatible', messages: ['KAITO does not support disaggregated mode'] },
    ],
    [
      'a privileged override (the webhook was bypassed) → invalid, naming the path: nothing is applied',
      widgets,
      md({ provider: { overrides: { spec: { template: { securityContext: { privileged: true } } } } } }),
      { state: 'absent' },
      {
        kind: 'invalid',
        message:
          'spec.provider.overrides.spec.template.securityContext: overriding "securityContext" is not allowed for security reasons',
      },
    ],
    [
      'an update past the limits after the provider was chosen (webhook down) → invalid with the validation message',
      widgets,
      md({ scaling: { replicas: 40 } }),
      { state: 'absent' },
      { kind: 'invalid', message: 'spec.scaling.replicas 40 exceeds maximum allowed (32)' },
    ],
    [
      'an override past the limits → invalid',
      widgets,
      md({ provider: { overrides: { spec: { services: { VllmWorker: { replicas: 33 } } } } } }),
      { state: 'absent' },
      {
        kind: 'invalid',
        message:
          'spec.provider.overrides.spec.services.VllmWorker.replicas 33 exceeds maximum allowed (32): overrides may not ask for more than spec.scaling may; set it there',
      },
    ],
    [
      'KAITO has no documented overrides: unknown keys are warnings, the apply goes on',
      kaito,
      md({ provider: { overrides: { tuning: { x: 1 } } } }),
      { state: 'absent' },
      {
        kind: 'apply',
        warnings: ['spec.provider.overrides.tuning: unknown override for provider kaito; it is ignored'],
      },
    ],
    [
      'the transform throws → transformFailed naming the object',
      widgets,
      md({ model: { id: 'untransformable' } }),
      { state: 'absent' },
      {
        kind: 'transformFailed',
        message: 'cannot build the Widget for team/llm: spec.model.id "untransformable" has no widget',
      },
    ],
    [
      'CRD missing → crdMissing',
      widgets,
      md(),
      { state: 'crdMissing' },
      {
        kind: 'crdMissing',
        message:
          "Widgets's Widget CRD (widgets.test.modelplane.io, test.modelplane.io/v1) is not installed in the cluster; waiting for it",
      },
    ],
    ['nothing there → apply', widgets, md(), { state: 'absent' }, { kind: 'apply', live: undefined }],
    [
      "a foreign object of that name → conflict, docs/kubeairunway.md's message",
      widgets,
      md(),
      present(foreign),
      { kind: 'conflict', message: 'resource team/llm exists but is not managed by this ModelDeployment' },
    ],
    [
      'ours, being deleted → wait',
      widgets,
      md(),
      present(ours(widgets, md(), { deletionTimestamp: '2026-01-01T00:00:00Z' })),
      { kind: 'waitForDeletion' },
    ],
    [
      'ours, config changed → apply in place',
      widgets,
      md({ scaling: { replicas: 5 } }),
      present(ours(widgets, md())),
      { kind: 'apply' },
    ],
    [
      'ours, built from another model.id → recreate',
      widgets,
      md({ model: { id: 'org/other' } }),
      present(ours(widgets, md())),
      {
        kind: 'recreate',
        message: 'model.id changed from org/model to org/other: deleting and recreating Widget team/llm',
      },
    ],
  ];
  for (const [name, def, deployment, upstream, want] of cases) {
    it(name, () => {
      const plan = planSync(def, deployment, upstream) as unknown as Record<string, unknown>;
      for (const [k, v] of Object.entries(want)) assert.deepEqual(plan[k], v, `${k}: ${JSON.stringify(plan[k])}`);
    });
  }
});

const T0 = Date.parse('2026-03-01T12:00:00Z');
const widget = (status?: Record<string, unknown>): KubeObject => ({ ...foreign, ...(status ? { status } : {}) });
const ctx = (now = T0) => ({ kind: 'Widget', now, generation: 3 });
const cond = (s: ProviderStatus, type: string) => s.conditions?.find((c) => c.type === type);
const summary = (s: ProviderStatus) => ({
  phase: s.phase,
  message: s.message,
  conditions: Object.fromEntries((s.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`])),
});

describe('computeProviderStatus', () => {
  const cases: Array<[string, StatusOutcome, ReturnType<typeof summary>]> = [
    [
      'created and Running',
      { kind: 'created', object: widget(), mapped: { phase: 'Running' } },
      {
        phase: 'Running',
        message: 'Widget created, pods are ready',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'True/ResourceCreated',
          Ready: 'True/DeploymentReady',
        },
      },
    ],
    [
      "created, not ready yet: Deploying with docs/kubeairunway.md's message and the upstream's own words",
      { kind: 'created', object: widget(), mapped: { phase: 'Deploying', message: 'pulling image' } },
      {
        phase: 'Deploying',
        message: 'Widget created, waiting for pods to be ready: pulling image',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'True/ResourceCreated',
          Ready: 'False/DeploymentInProgress',
        },
      },
    ],
    [
      'a mapped Pending is Pending, as the status-mapping table says (KubeRay serviceStatus Pending, Dynamo pending)',
      { kind: 'created', object: widget(), mapped: { phase: 'Pending', message: 'waiting for a head node' } },
      {
        phase: 'Pending',
        message: 'Widget created, pending in its operator: waiting for a head node',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'True/ResourceCreated',
          Ready: 'False/DeploymentPending',
        },
      },
    ],
    [
      'invalid (webhook bypassed): everything as it was, Pending with the validation message, Ready=False',
      { kind: 'invalid', message: 'spec.scaling.replicas 40 exceeds maximum allowed (32)' },
      {
        phase: 'Pending',
        message: 'spec.scaling.replicas 40 exceeds maximum allowed (32)',
        conditions: { Ready: 'False/ValidationFailed' },
      },
    ],
    [
      'created and Failed: the extracted message',
      { kind: 'created', object: widget(), mapped: { phase: 'Failed', message: 'OOMKilled' } },
      {
        phase: 'Failed',
        message: 'OOMKilled',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'True/ResourceCreated',
          Ready: 'False/DeploymentFailed',
        },
      },
    ],
    [
      'incompatible',
      { kind: 'incompatible', messages: ['KAITO does not support sglang engine'] },
      {
        phase: 'Failed',
        message: 'KAITO does not support sglang engine',
        conditions: { ProviderCompatible: 'False/IncompatibleConfiguration', Ready: 'False/IncompatibleConfiguration' },
      },
    ],
    [
      'conflict',
      {
        kind: 'failed',
        reason: 'ResourceConflict',
        message: 'resource team/llm exists but is not managed by this ModelDeployment',
      },
      {
        phase: 'Failed',
        message: 'resource team/llm exists but is not managed by this ModelDeployment',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'False/ResourceConflict',
          Ready: 'False/ResourceConflict',
        },
      },
    ],
    [
      'CRD missing',
      { kind: 'pending', reason: 'CRDNotInstalled', message: 'no CRD' },
      {
        phase: 'Pending',
        message: 'no CRD',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'False/CRDNotInstalled',
          Ready: 'False/CRDNotInstalled',
        },
      },
    ],
    [
      'recreating',
      { kind: 'replacing', reason: 'RecreatingResource', message: 'engine.type changed' },
      {
        phase: 'Deploying',
        message: 'engine.type changed',
        conditions: {
          ProviderCompatible: 'True/CompatibilityVerified',
          ResourceCreated: 'False/RecreatingResource',
          Ready: 'False/DeploymentInProgress',
        },
      },
    ],
  ];
  for (const [name, outcome, want] of cases) {
    it(name, () => assert.deepEqual(summary(computeProviderStatus({}, outcome, ctx()).status), want));
  }

  it('is never Ready with 0 ready pods: scaled to zero is Running but not Ready, a Running upstream with none ready is Deploying', () => {
    const zero = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Running', replicas: { desired: 0, ready: 0 } } },
      ctx(),
    ).status;
    assert.deepEqual(summary(zero).conditions.Ready, 'False/ScaledToZero');
    assert.equal(zero.phase, 'Running');
    assert.match(zero.message ?? '', /scaled to zero \(spec\.scaling\.replicas is 0\): no pod serves the model/);
    const none = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Running', replicas: { desired: 2, ready: 0 } } },
      ctx(),
    ).status;
    assert.deepEqual([none.phase, summary(none).conditions.Ready], ['Deploying', 'False/DeploymentInProgress']);
    assert.match(none.message ?? '', /0\/2 ready/);
    const one = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Running', replicas: { desired: 2, ready: 1 } } },
      ctx(),
    ).status;
    assert.equal(summary(one).conditions.Ready, 'True/DeploymentReady');
  });

  it('created: provider.resourceName/resourceKind, replicas and endpoint; undefined members left out', () => {
    const { status } = computeProviderStatus(
      {},
      {
        kind: 'created',
        object: widget(),
        mapped: {
          phase: 'Running',
          replicas: { desired: 2, ready: undefined },
          endpoint: { service: 'svc', port: 80 },
        },
      },
      ctx(),
    );
    assert.deepEqual(status.provider, { resourceName: 'llm', resourceKind: 'Widget' });
    assert.deepEqual(status.replicas, { desired: 2 });
    assert.deepEqual(
      status.endpoint,
      { service: 'svc', port: 80, url: 'http://svc.team.svc.cluster.local' },
      'the in-cluster URL (port 80 implied)',
    );
    const other = computeProviderStatus(
      {},
      {
        kind: 'created',
        object: widget(),
        mapped: { phase: 'Running', endpoint: { service: 'llm-serve-svc', port: 8000 } },
      },
      ctx(),
    ).status;
    assert.equal(other.endpoint?.url, 'http://llm-serve-svc.team.svc.cluster.local:8000');
    assert.equal(cond(status, 'Ready')?.observedGeneration, 3);
  });

  it("only the provider's fields: nothing of the core's (provider.name, selectedReason, Validated, ProviderSelected)", () => {
    const { status } = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Running' } },
      ctx(),
    );
    assert.deepEqual(Object.keys(status).sort(), ['conditions', 'message', 'phase', 'provider']);
    assert.deepEqual(Object.keys(status.provider!).sort(), ['resourceKind', 'resourceName']);
    assert.deepEqual(status.conditions!.map((c) => c.type).sort(), ['ProviderCompatible', 'Ready', 'ResourceCreated']);
  });

  it('incompatible drops what only a created resource has', () => {
    const created = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Running', endpoint: { service: 's', port: 1 } } },
      ctx(),
    ).status;
    const { status } = computeProviderStatus(created, { kind: 'incompatible', messages: ['no'] }, ctx());
    assert.equal(status.provider, undefined);
    assert.equal(status.endpoint, undefined);
    assert.equal(cond(status, 'ResourceCreated'), undefined);
  });

  it('incompatible with the resource built before still there: it keeps being reported (it still serves)', () => {
    const mapped = {
      phase: 'Running' as const,
      replicas: { desired: 2, ready: 2, available: 2 },
      endpoint: { service: 's', port: 80 },
    };
    const created = computeProviderStatus({}, { kind: 'created', object: widget(), mapped }, ctx()).status;
    const { status } = computeProviderStatus(
      created,
      { kind: 'incompatible', messages: ['no'], serving: { object: widget(), mapped } },
      ctx(),
    );
    assert.deepEqual([status.phase, status.message], ['Failed', 'no']);
    assert.deepEqual(status.provider, created.provider);
    assert.deepEqual(status.replicas, { desired: 2, ready: 2, available: 2 });
    assert.deepEqual(status.endpoint, created.endpoint);
    assert.equal(cond(status, 'ResourceCreated')?.status, 'True');
    assert.deepEqual(
      [cond(status, 'ProviderCompatible')?.status, cond(status, 'Ready')?.status, cond(status, 'Ready')?.reason],
      ['False', 'False', 'IncompatibleConfiguration'],
    );
  });

  it('never says Ready=True with 0 ready pods, whatever the upstream reports (seeded property)', () => {
    let seed = 28;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const phases = ['Running', 'Deploying', 'Pending', 'Failed'] as const;
    let before = {};
    for (let i = 0; i < 2_000; i++) {
      const desired = next(4);
      const ready = next(5) - 1; // -1: not reported
      const mapped = {
        phase: phases[next(4)]!,
        replicas: { desired, ...(ready >= 0 ? { ready } : {}) },
      };
      const { status } = computeProviderStatus(before, { kind: 'created', object: widget(), mapped }, ctx(T0 + i));
      if (cond(status, 'Ready')?.status === 'True') {
        assert.equal(status.phase, 'Running', JSON.stringify(mapped));
        assert.notEqual(status.replicas?.ready, 0, JSON.stringify(mapped));
      }
      if (mapped.phase === 'Running' && ready === 0)
        assert.equal(cond(status, 'Ready')?.reason, desired === 0 ? 'ScaledToZero' : 'DeploymentInProgress');
      before = status;
    }
  });

  it('the same outcome again, later: identical status (nothing to write), lastTransitionTime kept', () => {
    const outcome: StatusOutcome = { kind: 'created', object: widget(), mapped: { phase: 'Running' } };
    const first = computeProviderStatus({}, outcome, ctx(T0)).status;
    const again = computeProviderStatus(first, outcome, ctx(T0 + 60_000)).status;
    assert.ok(deepEqual(first, again));
  });

  it('a message-only change keeps lastTransitionTime; a reason change moves it', () => {
    const first = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Deploying', message: 'a' } },
      ctx(T0),
    ).status;
    const msg = computeProviderStatus(
      first,
      { kind: 'created', object: widget(), mapped: { phase: 'Deploying', message: 'b' } },
      ctx(T0 + 60_000),
    ).status;
    assert.equal(cond(msg, 'Ready')?.lastTransitionTime, cond(first, 'Ready')?.lastTransitionTime);
    assert.notEqual(cond(msg, 'Ready')?.message, cond(first, 'Ready')?.message);
    const ready = computeProviderStatus(
      msg,
      { kind: 'created', object: widget(), mapped: { phase: 'Running' } },
      ctx(T0 + 120_000),
    ).status;
    assert.equal(cond(ready, 'Ready')?.lastTransitionTime, '2026-03-01T12:02:00Z');
    assert.equal(
      cond(ready, 'ResourceCreated')?.lastTransitionTime,
      '2026-03-01T12:00:00Z',
      'unchanged conditions keep theirs',
    );
  });

  it('terminating keeps everything else as it was and only sets phase and message', () => {
    const created = computeProviderStatus(
      {},
      { kind: 'created', object: widget(), mapped: { phase: 'Running', endpoint: { service: 's', port: 1 } } },
      ctx(),
    ).status;
    const { status } = computeProviderStatus(
      created,
      { kind: 'terminating', message: 'deleting Widget team/llm' },
      ctx(T0 + 5_000),
    );
    assert.deepEqual({ ...status, phase: created.phase, message: created.message }, created);
    assert.equal(status.phase, 'Terminating');
  });

  it('events: an incompatibility is a Warning once (on the transition), not on every reconcile', () => {
    const outcome: StatusOutcome = { kind: 'incompatible', messages: ['KAITO does not support sglang engine'] };
    const first = computeProviderStatus({}, outcome, ctx());
    const reported = first.conditions.observations().filter(shouldReport);
    assert.deepEqual(
      reported.map((o) => [o.condition.type, o.config.level]),
      [['ProviderCompatible', 'warning']],
    );
    const second = computeProviderStatus(first.status, outcome, ctx(T0 + 30_000));
    assert.deepEqual(second.conditions.observations().filter(shouldReport), []);
  });
});
