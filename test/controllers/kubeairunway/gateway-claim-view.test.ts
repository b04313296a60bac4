// What a ModelDeployment's update must carry to make the other claimants of its model name look again
// (claimView, docs/kubeairunway.md "Model names on a Gateway"): every field their decision reads, and
// nothing it does not, so a provider's phase or message does not send every claimant of a popular model
// through the gateway controller again. A deployment that cannot serve the name is no claimant at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import { claimView } from '../../../src/controllers/kubeairunway/gateway/ownership.ts';

const base = (): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: {
    name: 'm',
    namespace: 'ns',
    uid: 'u1',
    generation: 2,
    resourceVersion: '10',
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'kaito-provider', operation: 'Apply', time: '2026-01-01T00:00:01Z' }],
  },
  spec: { model: { id: 'org/model' }, gateway: { enabled: true } },
  status: {
    phase: 'Deploying',
    message: 'starting',
    observedGeneration: 2,
    provider: { name: 'kaito', selectedReason: 'only one' },
    endpoint: { service: 'm', port: 80 },
    replicas: { desired: 2, ready: 1 },
    gateway: { modelName: 'org/model', gatewayName: 'g', gatewayNamespace: 'gw' },
    conditions: [
      { type: 'Ready', status: 'False', reason: 'Deploying', message: 'x', lastTransitionTime: '2026-01-01T00:00:01Z' },
      { type: 'GatewayReady', status: 'True', reason: 'HTTPRouteAccepted', message: 'y', lastTransitionTime: 't' },
    ],
  },
});

type Edit = [string, (md: ModelDeployment) => void];
const status = (md: ModelDeployment) => md.status as NonNullable<ModelDeployment['status']> & Record<string, any>;

describe('claimView: what the other claimants of a model name read', () => {
  const unread: Edit[] = [
    ['resourceVersion', (md) => (md.metadata.resourceVersion = '11')],
    ['managedFields (a write by another manager within the same second)', (md) => (md.metadata.managedFields = [])],
    ['status.phase', (md) => (status(md).phase = 'Running')],
    ['status.message', (md) => (status(md).message = 'ready')],
    ['status.observedGeneration', (md) => (status(md).observedGeneration = 3)],
    ['status.provider.selectedReason', (md) => (status(md).provider!.selectedReason = 'another reason')],
    ['status.replicas.desired', (md) => (status(md).replicas!.desired = 3)],
    ['another condition', (md) => (status(md).conditions![0]!.status = 'True')],
    ['ready pods 1 → 3', (md) => (status(md).replicas!.ready = 3)],
    ['labels and annotations', (md) => Object.assign(md.metadata, { labels: { a: 'b' }, annotations: { c: 'd' } })],
    ['finalizers', (md) => (md.metadata.finalizers = ['kubeairunway.ai/kaito-provider'])],
    [
      'spec.gateway.modelName set to the name it answers to already',
      (md) => (md.spec.gateway = { ...md.spec.gateway, modelName: 'org/model' }),
    ],
    [
      'GatewayReady message and time',
      (md) => Object.assign(status(md).conditions![1]!, { message: 'z', lastTransitionTime: 'u' }),
    ],
  ];
  for (const [what, edit] of unread)
    it(`an update of ${what} alone tells them nothing`, () => {
      const after = base();
      edit(after);
      assert.deepEqual(claimView(after), claimView(base()));
    });

  const read: Edit[] = [
    ['spec.gateway.modelName', (md) => (md.spec.gateway = { ...md.spec.gateway, modelName: 'other' })],
    ['spec.gateway.enabled', (md) => (md.spec.gateway = { enabled: false })],
    ['spec.gateway.weight', (md) => (md.spec.gateway = { ...md.spec.gateway, weight: 10 })],
    ['spec.model', (md) => (md.spec.model = { id: 'org/other' })],
    ['deletion', (md) => (md.metadata.deletionTimestamp = '2026-01-01T00:01:00Z')],
    ['spec.gateway.gatewayRef', (md) => (md.spec.gateway = { ...md.spec.gateway, gatewayRef: { name: 'h' } })],
    [
      'spec.gateway.httpRouteRef (routes itself)',
      (md) => (md.spec.gateway = { ...md.spec.gateway, httpRouteRef: 'r' }),
    ],
    ['status.provider.name', (md) => (status(md).provider = { name: 'dynamo' })],
    ['status.endpoint', (md) => (status(md).endpoint = { service: 'm2', port: 80 })],
    ['status.replicas.ready', (md) => (status(md).replicas!.ready = 0)],
    [
      'status.gateway',
      (md) => (status(md).gateway = { modelName: 'org/model', gatewayName: 'h', gatewayNamespace: 'gw' }),
    ],
    [
      'GatewayReady reason (holding the route or not)',
      (md) => (status(md).conditions![1]!.reason = 'ModelNameConflict'),
    ],
    ['GatewayReady removed', (md) => (status(md).conditions = status(md).conditions!.slice(0, 1))],
  ];
  it('a deployment that cannot serve the name shows nothing to them, whatever else changes', () => {
    const idle = base();
    status(idle).replicas!.ready = 0;
    const edited = structuredClone(idle);
    Object.assign(status(edited), {
      provider: { name: 'dynamo' },
      gateway: undefined,
      endpoint: { service: 'x', port: 1 },
    });
    edited.spec.gateway = { modelName: 'other', weight: 5 };
    assert.deepEqual(claimView(edited), claimView(idle));
    const deleting = base();
    deleting.metadata.deletionTimestamp = '2026-01-01T00:01:00Z';
    assert.deepEqual(claimView(deleting), claimView(idle));
  });

  for (const [what, edit] of read)
    it(`an update of ${what} reaches them`, () => {
      const after = base();
      edit(after);
      assert.notDeepEqual(claimView(after), claimView(base()));
    });
});
