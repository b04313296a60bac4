// A provider that dies is visible on what it owns (docs/kubeairunway.md, "Provider readiness and heartbeats"),
// against the core controller on the test cluster (embedded or real API server): its heartbeat goes stale with
// no event at all; a deployment it never built is selected again (its finalizer released), one it built keeps
// it with ProviderSelected=Unknown and Ready=Unknown, and kubectl get ipc says READY false. When it beats
// again the core gives back what it held.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InferenceProviderConfigs, type ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import { defaultProviderConfig } from '../../../src/controllers/kubeairunway/selection/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { type CoreCluster, NS, startCoreCluster } from './core-cluster.ts';
import { eventsFor } from './provider-helpers.ts';

const readyTrue = () => ({
  type: 'Ready',
  status: 'True' as const,
  reason: 'DeploymentReady',
  message: 'RayService created, pods are ready',
  lastTransitionTime: new Date().toISOString(),
});

describe('kubeairunway core: liveness of the selected provider', { timeout: 90_000 }, () => {
  let core: CoreCluster;
  before(async () => {
    core = await startCoreCluster();
  });
  after(async () => core?.stop());

  it('a provider whose heartbeat goes stale (no event at all) loses what it has not built and is reported on what it has', async () => {
    const { admin, cluster, create, get, selected } = core;
    // kuberay's last beat is almost 3 minutes old: fresh now, stale in ~3 s, and nothing will tell the core
    const beat = async (ageMs: number) =>
      admin.withFieldManager('kuberay-provider').applyStatus(
        {
          ...defaultProviderConfig('kuberay'),
          status: {
            ready: true,
            version: 'test',
            lastHeartbeat: new Date(Date.now() - ageMs).toISOString(),
            upstreamCRDVersion: 'ray.io/v1',
          },
        },
        { force: true },
      );
    // as the kuberay provider reports what it built: Running, Ready
    const kuberayReportsRunning = () =>
      admin.withFieldManager('kuberay-provider').applyStatus(
        {
          apiVersion: 'kubeairunway.ai/v1alpha1',
          kind: 'ModelDeployment',
          metadata: { name: 'dies-built', namespace: NS },
          status: {
            phase: 'Running',
            message: 'RayService created, pods are ready',
            provider: { resourceName: 'dies-built', resourceKind: 'RayService' },
            conditions: [readyTrue()],
          },
        } as ModelDeployment,
        { force: true },
      );
    await beat(177_000);
    const spec = {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'vllm' as const },
      resources: { gpu: { count: 2 } },
    };
    await create('dies-unbuilt', spec);
    await create('dies-built', spec);
    assert.equal(await selected('dies-unbuilt'), 'kuberay');
    assert.equal(await selected('dies-built'), 'kuberay');
    // between the selection and the provider's first status write the core says what the deployment waits for
    const waiting = await get('dies-unbuilt');
    assert.equal(waiting.status?.phase, 'Pending');
    assert.match(
      waiting.status?.message ?? '',
      /^waiting for provider kuberay to act on it \(its last heartbeat at \S+Z; a provider silent for 180s is taken for dead, and a deployment it has not built is selected again\)$/,
    );
    // kuberay had claimed dies-unbuilt (its finalizer, beside someone else's) but built nothing
    await cluster.k([
      'patch',
      'md',
      'dies-unbuilt',
      '-n',
      NS,
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: { finalizers: ['example.com/keep', 'kubeairunway.ai/kuberay-provider'] } }),
    ]);
    // kuberay built dies-built's RayService before it died
    await kuberayReportsRunning();
    const moved = await waitFor(
      'dies-unbuilt to be selected again',
      async () => {
        const m = await get('dies-unbuilt');
        return m.status?.provider?.name === 'dynamo' && m;
      },
      { timeoutMs: 30_000 },
    );
    const released = await waitFor("the dead provider's finalizer released", async () => {
      const m = await get('dies-unbuilt');
      return !m.metadata.finalizers?.includes('kubeairunway.ai/kuberay-provider') && m;
    });
    assert.deepEqual(released.metadata.finalizers, ['example.com/keep'], "only the dead provider's finalizer goes");
    assert.match(
      moved.status?.conditions?.find((c) => c.type === 'ProviderSelected')?.message ?? '',
      /provider kuberay is unavailable: heartbeat stale: last at .*, over [13]m ago \(stale after 180s\)/,
    );
    const held = await waitFor('dies-built to report ProviderUnavailable', async () => {
      const c = (await get('dies-built')).status?.conditions?.find((x) => x.type === 'ProviderSelected');
      return c?.reason === 'ProviderUnavailable' && c;
    });
    assert.equal(held.status, 'Unknown');
    const built = await get('dies-built');
    assert.equal(built.status?.provider?.name, 'kuberay', 'what was built is never moved');
    assert.equal(built.status?.phase, 'Running', 'the core does not take the phase of what the provider built');
    const events = await waitFor('a Warning event', async () => {
      const found = await eventsFor(admin, NS, 'dies-built', 'ProviderUnavailable');
      return found.length > 0 && found;
    });
    assert.match(events[0]!.note ?? '', /provider kuberay is unavailable/);
    // nobody vouches for the Ready the dead provider wrote: Unknown, said by the core
    const ready = await waitFor('dies-built Ready=Unknown', async () => {
      const c = (await get('dies-built')).status?.conditions?.find((x) => x.type === 'Ready');
      return c?.status === 'Unknown' && c;
    });
    assert.equal(ready.reason, 'ProviderUnavailable');
    assert.match(
      ready.message ?? '',
      /^provider kuberay is unavailable: heartbeat stale: .*; what it built may still serve/,
    );
    // and kubectl get ipc says the dead provider is not ready
    const dead = await waitFor('InferenceProviderConfig kuberay ready=false', async () => {
      const ipc = await admin.get(InferenceProviderConfigs, 'kuberay');
      return ipc.status?.ready === false && ipc;
    });
    const heartbeat = dead.status?.conditions?.find((c) => c.type === 'Heartbeat');
    assert.deepEqual([heartbeat?.status, heartbeat?.reason], ['False', 'HeartbeatStale']);
    assert.equal(
      heartbeat?.message,
      `no heartbeat since ${dead.status?.lastHeartbeat} (stale after 180s): the kuberay provider's controller is not running, so kubeairunway-core marked it not ready; start it (modelplane provider kuberay, or its Deployment) and check its logs`,
    );
    assert.match(await cluster.k(['get', 'ipc', 'kuberay']), /^kuberay\s+false\s+test\s+\d+m/m);
    // it beats again: the conditions follow, and the core gives back what it held
    await beat(0);
    await waitFor('dies-built to be ProviderSelected=True again', async () => {
      const c = (await get('dies-built')).status?.conditions?.find((x) => x.type === 'ProviderSelected');
      return c?.status === 'True';
    });
    await waitFor('the Heartbeat condition removed from kuberay', async () => {
      const ipc = await admin.get(InferenceProviderConfigs, 'kuberay');
      return ipc.status?.ready === true && !ipc.status.conditions?.some((c) => c.type === 'Heartbeat');
    });
    // the provider's first status write takes Ready back; the core held it until then (letting go of a
    // condition it had taken would leave the entry without a status)
    assert.equal((await get('dies-built')).status?.conditions?.find((c) => c.type === 'Ready')?.status, 'Unknown');
    await kuberayReportsRunning();
    // the core's next look lets go of what is left of Ready, and never takes it again from a live provider
    await cluster.k(['annotate', 'md', 'dies-built', '-n', NS, 'example.com/touch=1']);
    const back = await waitFor("the core's hold on Ready released", async () => {
      const m = await get('dies-built');
      const core = m.metadata.managedFields?.find(
        (e) => e.manager === 'kubeairunway-core' && e.subresource === 'status',
      );
      return !JSON.stringify(core?.fieldsV1 ?? {}).includes('{\\"type\\":\\"Ready\\"}') && m;
    });
    assert.equal(back.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(back.status?.phase, 'Running');
    assert.equal((await get('dies-unbuilt')).status?.provider?.name, 'dynamo', 're-selection is sticky');
  });
});
