// The core's status decision: validation at reconcile time (webhook bypassed), selection, and only the
// fields the ownership table gives the core.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import { externalCrds } from '@modelplane/sim/crds';
import {
  BUILTIN_PROVIDERS,
  type InferenceProviderConfig,
  type ModelDeployment,
} from '../../../src/apis/kubeairunway/index.ts';
import { planCoreStatus } from '../../../src/controllers/kubeairunway/core/index.ts';
import { defaultProviderConfig } from '../../../src/controllers/kubeairunway/selection/index.ts';
import { servedGroupVersions } from '../../../src/controllers/kubeairunway/served-apis.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const providers = (opts: { stale?: string[]; gv?: Record<string, string> } = {}): InferenceProviderConfig[] =>
  BUILTIN_PROVIDERS.map((n) => ({
    ...defaultProviderConfig(n),
    status: {
      ready: true,
      lastHeartbeat: new Date(NOW - (opts.stale?.includes(n) ? 3_600_000 : 10_000)).toISOString(),
      ...(opts.gv?.[n] ? { upstreamCRDVersion: opts.gv[n] } : {}),
    },
  }));
const md = (spec: ModelDeployment['spec'], status?: ModelDeployment['status']): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'm', namespace: 'ns', generation: 3 },
  spec,
  ...(status ? { status } : {}),
});
/** the core's phase message between selection and the provider's first status write */
const WAITING = (p: string) =>
  new RegExp(
    `^waiting for provider ${p} to act on it \\(its last heartbeat at 2026-03-01T11:59:50.000Z; a provider silent for 180s is taken for dead, and a deployment it has not built is selected again\\)$`,
  );
const inputs = (over: Partial<Parameters<typeof planCoreStatus>[1]> = {}) => ({
  providers: providers(),
  apiServed: () => true,
  now: NOW,
  previous: {},
  ...over,
});

describe('planCoreStatus', () => {
  const cases: Array<{
    name: string;
    md: ModelDeployment;
    in?: Partial<Parameters<typeof planCoreStatus>[1]>;
    provider?: string;
    phase?: string;
    validated: string;
    selected?: string;
    message?: RegExp;
  }> = [
    {
      name: '1 GPU vllm → dynamo',
      md: md({ model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }),
      provider: 'dynamo',
      phase: 'Pending',
      validated: 'True',
      selected: 'True',
      message: WAITING('dynamo'),
    },
    {
      name: '2 GPU vllm → kuberay',
      md: md({ model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } }),
      provider: 'kuberay',
      phase: 'Pending',
      validated: 'True',
      selected: 'True',
      message: WAITING('kuberay'),
    },
    {
      name: 'CPU llamacpp → kaito',
      md: md({
        model: { id: 'q' },
        engine: { type: 'llamacpp' },
        image: 'ghcr.io/ggml-org/llama.cpp:server',
        resources: { cpu: '4' },
      }),
      provider: 'kaito',
      phase: 'Pending',
      validated: 'True',
      selected: 'True',
      message: WAITING('kaito'),
    },
    {
      name: 'amd.com/gpu → aim',
      md: md({ model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } }),
      provider: 'aim',
      phase: 'Pending',
      validated: 'True',
      selected: 'True',
      message: WAITING('aim'),
    },
    {
      name: 'invalid spec (webhook bypassed) → Pending with docs/kubeairunway.md message, nothing selected',
      md: md({ model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 0 } } }),
      phase: 'Pending',
      validated: 'False',
      message: /^vLLM engine requires GPU \(set resources\.gpu\.count > 0\)$/,
    },
    {
      name: 'missing engine.type',
      md: md({ model: { id: 'q' } }),
      phase: 'Pending',
      validated: 'False',
      message: /engine\.type is required/,
    },
    {
      // it is never selected again, so the message does not promise it
      name: 'explicit provider not written yet → Pending, waiting for it however long it is silent',
      md: md({
        model: { id: 'q' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1 } },
        provider: { name: 'dynamo' },
      }),
      in: { providers: providers({ gv: { dynamo: 'nvidia.com/v1alpha1' } }) },
      provider: 'dynamo',
      phase: 'Pending',
      validated: 'True',
      selected: 'True',
      message:
        /^waiting for provider dynamo to act on it \(its last heartbeat at 2026-03-01T11:59:50\.000Z; it is named in spec\.provider\.name, so the deployment waits for it even when it is silent for over 180s: then ProviderSelected says so\)$/,
    },
    {
      name: 'explicit provider whose CRD is not served → Pending naming it',
      md: md({
        model: { id: 'q' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1 } },
        provider: { name: 'kaito' },
      }),
      in: { providers: providers({ gv: { kaito: 'kaito.sh/v1beta1' } }), apiServed: (gv) => gv !== 'kaito.sh/v1beta1' },
      phase: 'Pending',
      validated: 'False',
      message: /Provider 'kaito' CRD not installed in cluster/,
    },
    {
      name: 'every capable provider stale → Pending, ProviderSelected False',
      md: md({ model: { id: 'q' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1 } } }),
      in: { providers: providers({ stale: ['dynamo'] }) },
      phase: 'Pending',
      validated: 'True',
      selected: 'False',
    },
    {
      name: 'sticky: a previous choice is kept even when another would win now',
      md: md(
        { model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } },
        { provider: { name: 'dynamo' } },
      ),
      provider: 'dynamo',
      phase: 'Pending',
      validated: 'True',
      selected: 'True',
      message: WAITING('dynamo'),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = planCoreStatus(c.md, inputs(c.in));
      assert.equal(d.status.provider?.name, c.provider);
      assert.equal(d.status.phase, c.phase);
      const cond = (t: string) => d.status.conditions.find((x) => x.type === t);
      assert.equal(cond('Validated')?.status, c.validated);
      assert.equal(cond('ProviderSelected')?.status, c.selected);
      if (c.message) assert.match(d.status.message ?? '', c.message);
      // the core never writes provider-owned fields
      assert.deepEqual(
        Object.keys(d.status).filter((k) => !['phase', 'message', 'provider', 'conditions'].includes(k)),
        [],
      );
      assert.ok(d.status.conditions.every((x) => x.observedGeneration === 3));
    });
  }

  it('is stable: planning again from its own output changes nothing (no status churn)', () => {
    const m = md({ model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } });
    const first = planCoreStatus(m, inputs());
    // as the next reconcile sees it: the written status is on the object
    const written = { ...m, status: { ...first.status } } as ModelDeployment;
    const second = planCoreStatus(written, inputs({ now: NOW + 60_000, previous: first.status }));
    assert.deepEqual(second.status, first.status);
  });

  it("decides 'CRD not installed' per kind: rayservices deleted while RayCluster (same group/version) is served", () => {
    const established = (crd: CustomResourceDefinition) => ({
      ...crd,
      status: { conditions: [{ type: 'Established', status: 'True' }] },
    });
    const crds = externalCrds().map(established) as CustomResourceDefinition[];
    const withoutRayService = servedGroupVersions(crds.filter((c) => c.metadata.name !== 'rayservices.ray.io'));
    assert.ok(withoutRayService.has('ray.io/v1'), 'the group/version is still served (RayCluster)');
    const kuberay = providers().map((p) =>
      p.metadata.name === 'kuberay'
        ? { ...p, status: { ...p.status, upstreamCRDVersion: 'ray.io/v1', upstreamKind: 'RayService' } }
        : p,
    );
    const spec = {
      model: { id: 'q' },
      engine: { type: 'vllm' as const },
      resources: { gpu: { count: 2 } },
      provider: { name: 'kuberay' },
    };
    const refused = planCoreStatus(
      md(spec),
      inputs({ providers: kuberay, apiServed: (k) => withoutRayService.has(k) }),
    );
    assert.equal(
      refused.status.message,
      "Provider 'kuberay' CRD not installed in cluster: kind RayService of ray.io/v1 is not served; install the CRD of the provider's operator (the deployment proceeds once it is served)",
    );
    assert.equal(refused.status.conditions.find((c) => c.type === 'Validated')?.status, 'False');
    const all = servedGroupVersions(crds);
    const admitted = planCoreStatus(md(spec), inputs({ providers: kuberay, apiServed: (k) => all.has(k) }));
    assert.equal(admitted.status.provider?.name, 'kuberay');
    // a CRD being deleted is no longer served either
    const deleting = crds.map((c) =>
      c.metadata.name === 'rayservices.ray.io'
        ? { ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-03-01T12:00:00Z' } }
        : c,
    );
    assert.equal(servedGroupVersions(deleting).has('ray.io/v1/RayService'), false);
  });

  describe('liveness of the selected provider', () => {
    const gpu2 = { model: { id: 'q' }, engine: { type: 'vllm' as const }, resources: { gpu: { count: 2 } } };
    const picked = { provider: { name: 'kuberay', selectedReason: 'matched capabilities' } };
    const cond = (d: ReturnType<typeof planCoreStatus>) =>
      d.status.conditions.find((c) => c.type === 'ProviderSelected');

    it('re-selects a deployment whose provider went stale before building anything', () => {
      const d = planCoreStatus(md(gpu2, picked), inputs({ providers: providers({ stale: ['kuberay'] }) }));
      // kuberay is not selectable: the next best for 2 GPUs vLLM is dynamo
      assert.equal(d.status.provider?.name, 'dynamo');
      assert.equal(cond(d)?.status, 'True');
      assert.match(
        cond(d)?.message ?? '',
        /provider kuberay is unavailable: heartbeat stale: last at 2026-03-01T11:00:00.000Z, over 1h ago \(stale after 180s\).*selected again/,
      );
      assert.equal(d.status.phase, 'Pending', 'until dynamo writes, the core says what it waits for');
      assert.match(d.status.message ?? '', WAITING('dynamo'));
    });

    it('keeps a provider that built something, with ProviderSelected=Unknown ProviderUnavailable naming the heartbeat age', () => {
      const built = { ...picked, provider: { ...picked.provider, resourceName: 'm', resourceKind: 'RayService' } };
      const d = planCoreStatus(md(gpu2, built), inputs({ providers: providers({ stale: ['kuberay'] }) }));
      assert.equal(d.status.provider?.name, 'kuberay', 'never moved away from what it built');
      assert.equal(cond(d)?.status, 'Unknown');
      assert.equal(cond(d)?.reason, 'ProviderUnavailable');
      assert.match(cond(d)?.message ?? '', /^provider kuberay is unavailable: heartbeat stale: .*over 1h ago/);
      assert.equal(d.status.phase, undefined, 'the provider owns the phase of what it built');
      assert.equal(d.retrySelection, true);
    });

    const readyTrueAgain = () => ({
      type: 'Ready',
      status: 'True' as const,
      reason: 'DeploymentReady',
      message: 'pods are ready',
      lastTransitionTime: '2026-03-01T12:00:00Z',
    });

    it('holds Ready at Unknown while the provider that built it is dead, and gives it back when it beats again', () => {
      const built = {
        ...picked,
        provider: { ...picked.provider, resourceName: 'm', resourceKind: 'RayService' },
        phase: 'Running' as const,
        conditions: [
          {
            type: 'Ready',
            status: 'True' as const,
            reason: 'DeploymentReady',
            message: 'pods are ready',
            lastTransitionTime: '2026-03-01T10:00:00Z',
          },
        ],
      };
      const down = planCoreStatus(md(gpu2, built), inputs({ providers: providers({ stale: ['kuberay'] }) }));
      const ready = down.status.conditions.find((c) => c.type === 'Ready');
      assert.deepEqual([ready?.status, ready?.reason], ['Unknown', 'ProviderUnavailable']);
      assert.equal(
        ready?.message,
        'provider kuberay is unavailable: heartbeat stale: last at 2026-03-01T11:00:00.000Z, over 1h ago (stale after 180s), so its controller is not running; start its provider controller (modelplane provider kuberay, or its Deployment) and check its logs; what it built may still serve, but nothing watches it until the provider runs again',
      );
      assert.equal(down.status.phase, undefined, "the phase stays the provider's");
      // while it stays dead, the look again 30 s later changes nothing: the age in the message is coarse, so
      // a dead provider's deployments are not rewritten at every look
      const again = planCoreStatus(
        md(gpu2, { ...built, conditions: down.status.conditions }),
        inputs({ now: NOW + 30_000, previous: down.status, providers: providers({ stale: ['kuberay'] }) }),
      );
      const later = again.status.conditions.find((c) => c.type === 'Ready');
      assert.deepEqual(again.status, down.status);
      assert.equal(later?.message, ready?.message);
      // the provider beats again: the core holds Ready until the provider's own write has taken it back
      // (dropping it first would leave an entry without a status), then lets go of what is left
      const up = planCoreStatus(
        md(gpu2, { ...built, conditions: down.status.conditions }),
        inputs({ previous: down.status }),
      );
      assert.deepEqual(
        up.status.conditions.find((c) => c.type === 'Ready'),
        down.status.conditions.find((c) => c.type === 'Ready'),
      );
      const takenBack = down.status.conditions.map((c) =>
        c.type === 'Ready' ? { type: 'Ready', observedGeneration: 3 } : c,
      );
      const released = planCoreStatus(
        md(gpu2, { ...built, conditions: [readyTrueAgain()] }),
        inputs({ previous: { ...down.status, conditions: takenBack as typeof down.status.conditions } }),
      );
      assert.equal(
        released.status.conditions.find((c) => c.type === 'Ready'),
        undefined,
      );
    });

    it('leaves Ready to a live provider that is not ready (its operator down): it still reconciles and reports', () => {
      const built = { ...picked, provider: { ...picked.provider, resourceName: 'm' } };
      const notReady = providers().map((p) =>
        p.metadata.name === 'kuberay' ? { ...p, status: { ...p.status, ready: false } } : p,
      );
      const d = planCoreStatus(md(gpu2, built), inputs({ providers: notReady }));
      assert.equal(cond(d)?.reason, 'ProviderUnavailable');
      assert.equal(
        d.status.conditions.find((c) => c.type === 'Ready'),
        undefined,
      );
    });

    it('stops saying what it waits for once the selected provider has written the status', () => {
      const m = md(gpu2, picked);
      const waiting = planCoreStatus(m, inputs());
      assert.equal(waiting.status.phase, 'Pending');
      assert.match(waiting.status.message ?? '', WAITING('kuberay'));
      const acted: ModelDeployment = {
        ...m,
        metadata: {
          ...m.metadata,
          managedFields: [
            { manager: 'kuberay-provider', operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': {} } },
          ],
        },
      };
      const after = planCoreStatus(acted, inputs({ previous: waiting.status }));
      assert.equal(after.status.phase, undefined);
      assert.equal(after.status.message, undefined);
      // another manager's entry (the gateway's) is not the provider acting
      const gateway: ModelDeployment = {
        ...m,
        metadata: {
          ...m.metadata,
          managedFields: [
            {
              manager: 'kubeairunway-gateway',
              operation: 'Apply',
              subresource: 'status',
              fieldsV1: { 'f:status': {} },
            },
          ],
        },
      };
      assert.equal(planCoreStatus(gateway, inputs()).status.phase, 'Pending');
    });

    it('holds an explicitly named provider, Pending while nothing is built', () => {
      const spec = { ...gpu2, provider: { name: 'kuberay' } };
      const registered = providers({ stale: ['kuberay'], gv: { kuberay: 'ray.io/v1' } });
      const d = planCoreStatus(md(spec), inputs({ providers: registered }));
      assert.equal(d.status.provider?.name, 'kuberay');
      assert.equal(cond(d)?.reason, 'ProviderUnavailable');
      assert.equal(d.status.phase, 'Pending');
      assert.match(d.status.message ?? '', /^provider kuberay is unavailable: heartbeat stale/);
    });

    it('a re-selection with nothing alive drops the dead choice (Pending, NoHealthyProviders)', () => {
      const all = providers({ stale: [...BUILTIN_PROVIDERS] });
      const d = planCoreStatus(md(gpu2, picked), inputs({ providers: all }));
      assert.equal(d.status.provider, undefined);
      assert.equal(cond(d)?.reason, 'NoHealthyProviders');
      assert.equal(d.status.phase, 'Pending');
    });

    it('comes back to True when the provider beats again', () => {
      const built = { ...picked, provider: { ...picked.provider, resourceName: 'm' } };
      const down = planCoreStatus(md(gpu2, built), inputs({ providers: providers({ stale: ['kuberay'] }) }));
      const up = planCoreStatus(
        md(gpu2, { ...built, conditions: down.status.conditions }),
        inputs({ previous: down.status }),
      );
      assert.equal(cond(up)?.status, 'True');
      assert.equal(up.status.provider?.name, 'kuberay');
      assert.equal(up.retrySelection, false);
    });
  });

  it('retries selection while nothing can be selected', () => {
    const d = planCoreStatus(
      md({ model: { id: 'q' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }),
      inputs({ providers: [] }),
    );
    assert.equal(d.retrySelection, true);
    assert.equal(d.status.phase, 'Pending');
  });
});
