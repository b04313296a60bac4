// What every workload simulator is built from: the manager it registers its controller with, the step
// delays, the log store, the component event recorders and a clock tests can move.

import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import type { SimDelays } from './delays.ts';
import type { PodLogStore } from './pod-logs.ts';
import type { ComponentRecorders } from './recorders.ts';

export interface SimContext {
  mgr: Manager;
  delays: SimDelays;
  logs: PodLogStore;
  recorders: ComponentRecorders;
  log: Logger;
  now: () => number;
}
