// core/v1 Event and events.k8s.io/v1 Event are two views of the same stored objects, as in Kubernetes.
// Storage holds the core/v1 shape; these convert between the two field layouts.
import type { KubeObject } from '../types.ts';

const renames: Array<[core: string, v1: string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function rename(obj: KubeObject, from: 0 | 1, apiVersion: string): KubeObject {
  const out: KubeObject = { ...obj, apiVersion };
  for (const pair of renames) {
    const src = pair[from];
    const dst = pair[1 - from]!;
    delete out[dst];
    if (obj[src] !== undefined) out[dst] = obj[src];
    delete out[src];
  }
  return out;
}

export function eventToEventsV1(core: KubeObject): KubeObject {
  const out = rename(core, 0, 'events.k8s.io/v1');
  // events.k8s.io/v1 requires eventTime; old core events only have timestamps.
  if (out.eventTime === undefined || out.eventTime === null) {
    const t = (core.firstTimestamp ?? core.lastTimestamp ?? core.metadata.creationTimestamp) as string | undefined;
    if (t) out.eventTime = t.replace(/Z$/, '.000000Z');
  }
  return out;
}

export function eventsV1ToEvent(v1: KubeObject): KubeObject {
  return rename(v1, 1, 'v1');
}
