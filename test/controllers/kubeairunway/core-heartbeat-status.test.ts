// What the core writes on a provider's InferenceProviderConfig (docs/kubeairunway.md, "Provider readiness and
// heartbeats"): ready=false and Heartbeat=False once the heartbeat is stale, nothing while it is fresh, and a
// look again at the moment it goes stale.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InferenceProviderConfig } from '../../../src/apis/kubeairunway/index.ts';
import { planHeartbeatStatus } from '../../../src/controllers/kubeairunway/core/heartbeat-status.ts';
import { defaultProviderConfig } from '../../../src/controllers/kubeairunway/selection/index.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ipc = (status: InferenceProviderConfig['status']): InferenceProviderConfig => ({
  ...defaultProviderConfig('kuberay'),
  ...(status ? { status } : {}),
});
const beatAgo = (ms: number, ready = true) =>
  ipc({ ready, version: 'v', lastHeartbeat: new Date(NOW - ms).toISOString() });

describe('planHeartbeatStatus', () => {
  it('writes nothing for a fresh provider and looks again just after the moment it goes stale', () => {
    const plan = planHeartbeatStatus(beatAgo(100_000), NOW);
    assert.deepEqual(plan.status, {});
    assert.equal(plan.requeueAfterMs, 80_000 + 50);
  });

  it('marks a stale provider not ready, whatever it last said, with a message naming what to do', () => {
    for (const ready of [true, false]) {
      const plan = planHeartbeatStatus(beatAgo(181_000, ready), NOW);
      assert.equal(plan.status.ready, false);
      assert.equal(plan.requeueAfterMs, undefined, 'staleness ends only with an event (a new heartbeat)');
      assert.deepEqual(
        plan.status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
        [
          [
            'Heartbeat',
            'False',
            'HeartbeatStale',
            "no heartbeat since 2026-03-01T11:56:59.000Z (stale after 180s): the kuberay provider's controller is not running, so kubeairunway-core marked it not ready; start it (modelplane provider kuberay, or its Deployment) and check its logs",
          ],
        ],
      );
    }
  });

  it('is stable while the provider stays dead (no write per look), and lets go once it beats again', () => {
    const first = planHeartbeatStatus(beatAgo(181_000), NOW);
    const later = planHeartbeatStatus(beatAgo(181_000 + 600_000), NOW + 600_000, first.status);
    assert.deepEqual(
      later.status.conditions?.[0]?.lastTransitionTime,
      first.status.conditions?.[0]?.lastTransitionTime,
    );
    const back = planHeartbeatStatus(beatAgo(1_000), NOW, first.status);
    assert.deepEqual(back.status, {}, 'nothing owned: the core gives ready and the condition back');
  });

  it('leaves alone a provider that never heartbeats (a hand-made config) and one whose heartbeat is not a time', () => {
    assert.deepEqual(planHeartbeatStatus(ipc({ ready: true }), NOW), { status: {} });
    assert.deepEqual(planHeartbeatStatus(ipc(undefined), NOW), { status: {} });
    assert.deepEqual(planHeartbeatStatus(ipc({ ready: true, lastHeartbeat: 'yesterday' }), NOW).status, {});
  });
});
