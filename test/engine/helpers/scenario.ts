// A configurable reconciler for state-engine tests: each test sets the component health (and optional
// decorate/manual status hooks) the next run reports; the planner always wants one child ConfigMap.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import {
  type ComponentState,
  type ConditionManager,
  type DomainReconciler,
  type EngineStatus,
  ManualClock,
  type MaybeHealth,
  Pipeline,
  type PipelineOptions,
  PlanResult,
  type RunOutcome,
} from '../../../src/engine/index.ts';
import { FakeCluster } from './fake-cluster.ts';

export interface Widget extends KubeObject {
  spec: { value: string };
  status?: EngineStatus;
}

export const Widgets = kindRef<Widget>('test.modelplane.io/v1', 'Widget');

export interface Scenario {
  health: MaybeHealth[];
  planError?: unknown;
  decorate?: (status: EngineStatus, cm: ConditionManager) => void;
  manual?: (status: EngineStatus, cm: ConditionManager) => void;
}

export function widget(name = 'w1', namespace = 'ns'): Widget {
  return { apiVersion: Widgets.apiVersion, kind: Widgets.kind, metadata: { name, namespace }, spec: { value: 'v1' } };
}

export function scenarioReconciler(s: Scenario): DomainReconciler<Widget, Scenario> {
  const r: DomainReconciler<Widget, Scenario> = {
    fetchRemoteState: async () => s,
    planResources: ({ object }) => {
      if (s.planError) throw s.planError;
      return new PlanResult().apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${object.metadata.name}-child`, namespace: object.metadata.namespace },
        data: { value: object.spec.value },
      });
    },
    getComponentHealth: (obs) => obs.health,
    decorateStatus: (status, cm) => s.decorate?.(status, cm),
  };
  // the pipeline picks manual mode by the presence of setStatus, which tests switch between runs
  Object.defineProperty(r, 'setStatus', {
    get: () => (s.manual ? (status: EngineStatus, cm: ConditionManager) => s.manual!(status, cm) : undefined),
  });
  return r;
}

export class Harness {
  readonly cluster = new FakeCluster();
  readonly clock = new ManualClock();
  readonly scenario: Scenario = { health: [] };
  readonly pipeline: Pipeline<Widget, Scenario>;

  constructor(opts: Partial<PipelineOptions<Widget, Scenario, Scenario, unknown, EngineStatus>> = {}) {
    this.pipeline = new Pipeline<Widget, Scenario>({
      name: 'test',
      reconciler: scenarioReconciler(this.scenario),
      clock: this.clock,
      ...opts,
    });
    this.cluster.put(widget());
  }

  get object(): Widget {
    return this.cluster.getObject<Widget>(Widgets.apiVersion, Widgets.kind, 'w1', 'ns')!;
  }

  /** one reconcile of the widget as it is stored now; records cleared first */
  async run(): Promise<RunOutcome> {
    this.cluster.clearRecords();
    return this.pipeline.run(this.object, this.cluster.deps());
  }

  condition(type: string) {
    return this.object.status?.conditions?.find((c) => c.type === type);
  }

  conditionTypes(): string[] {
    return (this.object.status?.conditions ?? []).map((c) => c.type).sort();
  }

  get state(): ComponentState | undefined {
    return this.object.status?.status as ComponentState | undefined;
  }

  get childApplied(): boolean {
    return this.cluster.requests.some((r) => r.verb === 'apply' && r.kind === 'ConfigMap');
  }
}
