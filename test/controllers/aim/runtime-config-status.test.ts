// The runtime configs' status decisions (pure), then the whole pipeline on the in-memory fake cluster:
// conditions, observedGeneration, events, the Gateway check and what a failed Gateway read keeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RuntimeConfigSpec } from '../../../src/common/runtime-config/index.ts';
import {
  CONDITION,
  type GatewayCheck,
  type GatewayLookup,
  type RuntimeConfigStatus,
  runtimeConfigPipeline,
  setRuntimeConfigStatus,
  validateRuntimeConfigSpec,
} from '../../../src/controllers/aim/runtime-config/index.ts';
import type { AIMClusterRuntimeConfig, AIMRuntimeConfig } from '../../../src/controllers/aim/shared/kinds.ts';
import { type Condition, ConditionManager } from '../../../src/engine/index.ts';
import { apiError, FakeCluster } from '../../engine/helpers/fake-cluster.ts';

const FM = 'aim-runtime-config-controller';
const check = (namespace: string, name: string): GatewayCheck => ({ kind: 'check', namespace, name });

function decide(spec: RuntimeConfigSpec, gateway: GatewayCheck, lookup?: GatewayLookup, existing: Condition[] = []) {
  const status: RuntimeConfigStatus = {};
  const cm = new ConditionManager(existing, { generation: 3 });
  setRuntimeConfigStatus(
    status,
    cm,
    { report: validateRuntimeConfigSpec(spec), gateway, ...(lookup ? { lookup } : {}) },
    3,
  );
  const by = (t: string) => cm.get(t);
  return { status, cm, by };
}

describe('runtime config status decisions', () => {
  type Want = [status: string, reason: string] | undefined;
  const cases: {
    name: string;
    spec: RuntimeConfigSpec;
    gateway: GatewayCheck;
    lookup?: GatewayLookup;
    ready: Want;
    valid: Want;
    gw: Want;
    deprecated: Want;
    message?: RegExp;
  }[] = [
    {
      name: 'valid, no routing',
      spec: {},
      gateway: { kind: 'none' },
      ready: ['True', 'ConfigurationValid'],
      valid: ['True', 'ConfigurationValid'],
      gw: undefined,
      deprecated: undefined,
    },
    {
      name: 'valid, Gateway exists',
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw', namespace: 'g' } } },
      gateway: check('g', 'gw'),
      lookup: 'found',
      ready: ['True', 'ConfigurationValid'],
      valid: ['True', 'ConfigurationValid'],
      gw: ['True', 'GatewayFound'],
      deprecated: undefined,
      message: /Gateway g\/gw exists/,
    },
    {
      name: 'valid, Gateway missing: ConfigValid stays True, Ready is False',
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw', namespace: 'g' } } },
      gateway: check('g', 'gw'),
      lookup: 'missing',
      ready: ['False', 'GatewayNotFound'],
      valid: ['True', 'ConfigurationValid'],
      gw: ['False', 'GatewayNotFound'],
      deprecated: undefined,
      message: /spec\.routing\.gatewayRef: Gateway g\/gw does not exist/,
    },
    {
      name: 'Gateway not checkable: Unknown, Ready stays True',
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw' } } },
      gateway: {
        kind: 'unchecked',
        reason: 'GatewayNamespaceUnset',
        message: 'spec.routing.gatewayRef.namespace is not set',
      },
      ready: ['True', 'ConfigurationValid'],
      valid: ['True', 'ConfigurationValid'],
      gw: ['Unknown', 'GatewayNamespaceUnset'],
      deprecated: undefined,
    },
    {
      name: 'one kind of problem: its reason',
      spec: { routing: { pathTemplate: '/{..x}' } },
      gateway: { kind: 'none' },
      ready: ['False', 'PathTemplateInvalid'],
      valid: ['False', 'PathTemplateInvalid'],
      gw: undefined,
      deprecated: undefined,
      message: /^spec\.routing\.pathTemplate: .*recursive descent/,
    },
    {
      name: 'several kinds of problem: InvalidSpec, every field named',
      spec: { routing: { pathTemplate: '/{..x}' }, env: [{ name: '9' }] },
      gateway: { kind: 'none' },
      ready: ['False', 'InvalidSpec'],
      valid: ['False', 'InvalidSpec'],
      gw: undefined,
      deprecated: undefined,
      message: /spec\.routing\.pathTemplate: .*; spec\.env\[0\]\.name: /,
    },
    {
      name: 'invalid spec wins over a missing Gateway in Ready',
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw', namespace: 'g' }, requestTimeout: '2.5s' } },
      gateway: check('g', 'gw'),
      lookup: 'missing',
      ready: ['False', 'InvalidRequestTimeout'],
      valid: ['False', 'InvalidRequestTimeout'],
      gw: ['False', 'GatewayNotFound'],
      deprecated: undefined,
    },
    {
      name: 'deprecated spelling: a note, still Ready',
      spec: { defaultStorageClassName: 'a', storage: { defaultStorageClassName: 'b' } },
      gateway: { kind: 'none' },
      ready: ['True', 'ConfigurationValid'],
      valid: ['True', 'ConfigurationValid'],
      gw: undefined,
      deprecated: ['True', 'DeprecatedFieldIgnored'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { status, by } = decide(c.spec, c.gateway, c.lookup);
      const pick = (t: string): Want => {
        const x = by(t);
        return x ? [x.status, x.reason] : undefined;
      };
      assert.deepEqual(pick(CONDITION.Ready), c.ready, 'Ready');
      assert.deepEqual(pick(CONDITION.ConfigValid), c.valid, 'ConfigValid');
      assert.deepEqual(pick(CONDITION.GatewayFound), c.gw, 'GatewayFound');
      assert.deepEqual(pick(CONDITION.DeprecatedFields), c.deprecated, 'DeprecatedFields');
      if (c.message) assert.match(by(CONDITION.Ready)!.message, c.message);
      assert.equal(status.observedGeneration, 3);
      assert.equal(by(CONDITION.Ready)!.observedGeneration, 3);
    });
  }

  it('a failed Gateway read keeps the last verdict; a stale verdict about another Gateway is not kept', () => {
    const spec: RuntimeConfigSpec = { routing: { enabled: true, gatewayRef: { name: 'gw', namespace: 'g' } } };
    const first = decide(spec, check('g', 'gw'), 'missing');
    const previous = first.cm.list();
    const again = decide(spec, check('g', 'gw'), 'unreadable', previous);
    assert.deepEqual(again.by(CONDITION.GatewayFound), first.by(CONDITION.GatewayFound));
    assert.equal(again.by(CONDITION.Ready)?.reason, 'GatewayNotFound');
    const moved = decide(
      { routing: { enabled: true, gatewayRef: { name: 'other', namespace: 'g' } } },
      check('g', 'other'),
      'unreadable',
      previous,
    );
    assert.equal(moved.by(CONDITION.GatewayFound)?.status, 'Unknown');
    assert.equal(moved.by(CONDITION.Ready)?.status, 'True');
  });

  it('routing switched off removes GatewayFound; fixing the spec flips ConfigValid back to True', () => {
    const broken = decide(
      { routing: { enabled: true, pathTemplate: '/{', gatewayRef: { name: 'gw', namespace: 'g' } } },
      check('g', 'gw'),
      'missing',
    );
    const fixed = decide({ routing: { enabled: false } }, { kind: 'none' }, undefined, broken.cm.list());
    assert.equal(fixed.by(CONDITION.GatewayFound), undefined);
    assert.equal(fixed.by(CONDITION.ConfigValid)?.status, 'True');
    assert.equal(fixed.by(CONDITION.Ready)?.status, 'True');
  });
});

const RC_API = 'aim.eai.amd.com/v1alpha1';
const rc = (spec: RuntimeConfigSpec, annotations?: Record<string, string>): AIMRuntimeConfig => ({
  apiVersion: RC_API,
  kind: 'AIMRuntimeConfig',
  metadata: { name: 'default', namespace: 'ml-team', generation: 2, ...(annotations ? { annotations } : {}) },
  spec,
});
const gateway = (namespace: string, name: string) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name, namespace },
  spec: {},
});

describe('runtime config pipeline (in-memory cluster)', () => {
  it('a missing Gateway, then the Gateway created: conditions, observedGeneration and one Warning event', async () => {
    const fake = new FakeCluster(FM);
    const pipeline = runtimeConfigPipeline('Namespace');
    const obj = fake.put(
      rc({ routing: { enabled: true, gatewayRef: { name: 'gw' }, pathTemplate: '/{.metadata.namespace}' } }),
    );
    await pipeline.run(obj, fake.deps());
    let stored = fake.getObject<AIMRuntimeConfig>(RC_API, 'AIMRuntimeConfig', 'default', 'ml-team')!;
    const cond = (t: string) => stored.status?.conditions?.find((c) => c.type === t);
    assert.equal(stored.status?.observedGeneration, 2);
    assert.equal(cond('ConfigValid')?.status, 'True');
    assert.equal(cond('GatewayFound')?.status, 'False');
    assert.match(
      cond('GatewayFound')!.message!,
      /Gateway ml-team\/gw does not exist/,
      "the namespace defaults to the config's own",
    );
    assert.equal(cond('Ready')?.status, 'False');
    assert.deepEqual(fake.events.map((e) => `${e.type}/${e.reason}`).sort(), [
      'Normal/ConfigurationValid',
      'Warning/GatewayNotFound',
    ]);

    fake.events.length = 0;
    await pipeline.run(stored, fake.deps());
    assert.deepEqual(fake.events, [], 'no repeat while nothing changes');
    assert.equal(fake.count('applyStatus'), 1, 'an unchanged status is not written again');

    fake.put(gateway('ml-team', 'gw'));
    await pipeline.run(stored, fake.deps());
    stored = fake.getObject<AIMRuntimeConfig>(RC_API, 'AIMRuntimeConfig', 'default', 'ml-team')!;
    assert.equal(cond('GatewayFound')?.status, 'True');
    assert.equal(cond('Ready')?.status, 'True');
  });

  it('the cluster kind uses the same skeleton; a failed Gateway read within the grace period changes nothing', async () => {
    const fake = new FakeCluster(FM);
    const pipeline = runtimeConfigPipeline('Cluster');
    const cfg: AIMClusterRuntimeConfig = {
      apiVersion: RC_API,
      kind: 'AIMClusterRuntimeConfig',
      metadata: { name: 'default', generation: 1 },
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw', namespace: 'g' } } },
    };
    let obj = fake.put(cfg);
    fake.put(gateway('g', 'gw'));
    await pipeline.run(obj, fake.deps());
    obj = fake.getObject<AIMClusterRuntimeConfig>(RC_API, 'AIMClusterRuntimeConfig', 'default')!;
    const before = JSON.stringify(obj.status);
    assert.match(before, /"GatewayFound".*"True"|"True".*"GatewayFound"/);

    const failing = { ...fake.deps(), reader: { ...fake.reader, get: async () => Promise.reject(apiError(503)) } };
    const outcome = await pipeline.run(obj, failing);
    assert.equal(outcome.requeueWithBackoff, true, 'an unreadable Gateway is retried');
    assert.equal(
      JSON.stringify(fake.getObject<AIMClusterRuntimeConfig>(RC_API, 'AIMClusterRuntimeConfig', 'default')!.status),
      before,
      'status untouched',
    );
  });

  it('a paused config is left alone', async () => {
    const fake = new FakeCluster(FM);
    const obj = fake.put(rc({ routing: { pathTemplate: '/{' } }, { 'aim.eai.amd.com/reconcile-paused': 'true' }));
    const outcome = await runtimeConfigPipeline('Namespace').run(obj, fake.deps());
    assert.equal(outcome.phase, 'paused');
    assert.equal(fake.count('applyStatus'), 0);
  });
});
