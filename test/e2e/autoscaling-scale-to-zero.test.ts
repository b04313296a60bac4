// Scale to zero and back, end to end on `modelplane dev` (docs/autoscaling.md, "Scale to zero" and "Scale from
// zero"): examples/autoscaling/scale-to-zero.yaml with a 10 s retention window in the scale-to-zero ConfigMap,
// the saturation engine, the simulated KEDA evaluating the ScaledObject's triggers against dev's Prometheus
// (the simulated one: nothing to install), and the gateway holding requests for a model at zero.
// What must hold (test/helpers/scale-to-zero.ts): an idle model keeps its replica for its whole window, then
// goes to 0; a request held at the gateway wakes it and is answered; while requests run or wait on its replica
// it does not go to zero; and it goes to zero again only a whole window after the last answer, never earlier.
// test/real/keda-autoscaling.test.ts runs the same scenario with the real KEDA.
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import { decisionSink, type LoggedDecision, setOptimizationInterval } from '../helpers/autoscaling.ts';
import { ScaleToZeroScenario } from '../helpers/scale-to-zero.ts';

describe('scale to zero after the retention window, and back from zero through the gateway', {
  timeout: 600_000,
}, () => {
  let dev: DevCluster;
  let scenario: ScaleToZeroScenario;
  const logged: LoggedDecision[] = [];

  before(async () => {
    delete process.env.PROMETHEUS_BASE_URL;
    // the simulated Prometheus, installed or not: the same figures on every machine
    process.env.MODELPLANE_PROMETHEUS = 'simulated';
    dev = await startDevCluster({
      port: 0,
      log: new Logger({}, 'info', decisionSink(logged)),
      prometheus: true,
      sets: [autoscalerControllerSet()],
    });
    await setOptimizationInterval(dev.manager.client.withFieldManager('scale-to-zero-e2e'), '1s');
    scenario = new ScaleToZeroScenario(dev.manager.client, logged, {
      windowSeconds: 10,
      prometheusUrl: process.env.PROMETHEUS_BASE_URL!,
      label: 'dev, simulated KEDA',
    });
    await scenario.setUp();
  });

  after(async () => {
    await scenario?.stop();
    await dev?.stop();
  });

  it('the idle model keeps its replica for its whole window, then goes to 0 (the decision, then KEDA)', () =>
    scenario.idleToZero());

  it('a request held at the gateway wakes the model and is answered; requests running or waiting on its replica keep it up; it goes to 0 again a whole window after the last answer', () =>
    scenario.wakeAndZeroAgain());
});
