// Event recorders that report as the Kubernetes components the simulators stand in for (`kubelet` with
// the node as instance, `default-scheduler`, `deployment-controller`, …), so `kubectl describe` shows
// the same "From" column a real cluster does.

import type { KubeClient } from '@modelplane/runtime/client';
import { AggregatingRecorder, apiEventSink, discardRecorder, type EventRecorder } from '@modelplane/runtime/events';
import type { Logger } from '@modelplane/runtime/log';

export class ComponentRecorders {
  private readonly recorders = new Map<string, AggregatingRecorder>();

  /** `enabled: false` drops every event (benchmarks that measure the controllers, not the simulators) */
  constructor(
    private readonly client: KubeClient,
    private readonly logger: Logger,
    private readonly enabled = true,
  ) {}

  /** the recorder of `component` (and `instance`, e.g. a node name for the kubelet) */
  for(component: string, instance?: string): EventRecorder {
    if (!this.enabled) return discardRecorder;
    const key = `${component}\u0000${instance ?? ''}`;
    let r = this.recorders.get(key);
    if (!r) {
      r = new AggregatingRecorder({
        reportingController: component,
        reportingInstance: instance ?? `${component}-modelplane-sim`,
        sink: apiEventSink(this.client.withFieldManager(component)),
        logger: this.logger,
      });
      this.recorders.set(key, r);
    }
    return r;
  }

  /** waits for every event write in flight */
  async drain(): Promise<void> {
    await Promise.all([...this.recorders.values()].map((r) => r.drain()));
  }
}
