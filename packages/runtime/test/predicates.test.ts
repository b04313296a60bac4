import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  and,
  annotationsChanged,
  generationChanged,
  ignoreFinalizerChange,
  ignoreOwnStatusWrites,
  labelsChanged,
  not,
  type ObjectEvent,
  or,
  resourceVersionChanged,
} from '../src/controller/predicates.ts';
import type { KubeObject, ManagedFieldsEntry } from '../src/meta/types.ts';

const mf = (
  manager: string,
  time: string,
  subresource?: string,
  fieldsV1: Record<string, unknown> = {},
): ManagedFieldsEntry => ({
  manager,
  operation: 'Apply',
  time,
  ...(subresource ? { subresource } : {}),
  fieldsType: 'FieldsV1',
  fieldsV1,
});
/** a status entry owning status.<fields> */
const owns = (manager: string, time: string, ...fields: string[]) =>
  mf(manager, time, 'status', { 'f:status': Object.fromEntries(fields.map((f) => [`f:${f}`, {}])) });

/** status.conditions: Mine (owned by ctrl) and Theirs (owned by other), each entry with its own key */
function conditionsWidget(mine: string, theirs: string): KubeObject {
  const condition = { '.': {}, 'f:type': {}, 'f:status': {} };
  return widget({
    rv: mine + theirs,
    status: {
      conditions: [
        { type: 'Mine', status: mine },
        { type: 'Theirs', status: theirs },
      ],
    },
    managedFields: [
      mf('ctrl', 't1', 'status', { 'f:status': { 'f:conditions': { 'k:{"type":"Mine"}': condition } } }),
      mf('other', 't1', 'status', { 'f:status': { 'f:conditions': { 'k:{"type":"Theirs"}': condition } } }),
    ],
  });
}

function widget(
  over: {
    gen?: number;
    rv?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    spec?: unknown;
    status?: unknown;
    managedFields?: ManagedFieldsEntry[];
  } = {},
): KubeObject {
  return {
    apiVersion: 'test.modelplane.io/v1',
    kind: 'Widget',
    metadata: {
      name: 'w',
      namespace: 'ns',
      generation: over.gen ?? 1,
      resourceVersion: over.rv ?? '1',
      labels: over.labels ?? { a: '1' },
      annotations: over.annotations ?? {},
      managedFields: over.managedFields ?? [mf('user', 't0')],
    },
    spec: over.spec ?? { size: 1 },
    status: over.status ?? { ready: false },
  };
}

const update = (old: KubeObject, obj: KubeObject): ObjectEvent => ({ type: 'update', old, obj });
const withMeta = (o: KubeObject, meta: Partial<KubeObject['metadata']>): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, ...meta },
});
const OURS = 'example.com/cleanup';

describe('predicates', () => {
  const cases: Array<{ name: string; pred: (ev: ObjectEvent) => boolean; ev: ObjectEvent; want: boolean }> = [
    {
      name: 'generationChanged passes adds',
      pred: generationChanged(),
      ev: { type: 'add', obj: widget() },
      want: true,
    },
    {
      name: 'generationChanged passes deletes',
      pred: generationChanged(),
      ev: { type: 'delete', obj: widget() },
      want: true,
    },
    {
      name: 'generationChanged passes a spec change',
      pred: generationChanged(),
      ev: update(widget(), widget({ gen: 2, rv: '2' })),
      want: true,
    },
    {
      name: 'generationChanged drops a status write',
      pred: generationChanged(),
      ev: update(widget(), widget({ rv: '2', status: { ready: true } })),
      want: false,
    },
    {
      name: 'generationChanged passes kinds without generation',
      pred: generationChanged(),
      ev: update(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '1' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '2' } },
      ),
      want: true,
    },
    {
      name: 'labelsChanged passes a label edit',
      pred: labelsChanged(),
      ev: update(widget(), widget({ labels: { a: '2' } })),
      want: true,
    },
    {
      name: 'labelsChanged drops a spec edit',
      pred: labelsChanged(),
      ev: update(widget(), widget({ gen: 2, spec: { size: 3 } })),
      want: false,
    },
    {
      name: 'annotationsChanged passes an annotation edit',
      pred: annotationsChanged(),
      ev: update(widget(), widget({ annotations: { x: 'y' } })),
      want: true,
    },
    {
      name: 'resourceVersionChanged drops a replay',
      pred: resourceVersionChanged(),
      ev: update(widget(), widget()),
      want: false,
    },
    {
      name: 'ignoreOwnStatusWrites drops our own status apply',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget({ managedFields: [mf('user', 't0'), owns('ctrl', 't1', 'ready')] }),
        widget({ rv: '2', status: { ready: true }, managedFields: [mf('user', 't0'), owns('ctrl', 't2', 'ready')] }),
      ),
      want: false,
    },
    {
      name: 'ignoreOwnStatusWrites drops our first status apply (entry appears)',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget({ status: {} }),
        widget({ rv: '2', status: { ready: true }, managedFields: [mf('user', 't0'), owns('ctrl', 't1', 'ready')] }),
      ),
      want: false,
    },
    {
      name: 'ignoreOwnStatusWrites passes a status write by someone else',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget({ status: { ready: false }, managedFields: [mf('user', 't0'), owns('ctrl', 't1', 'ready')] }),
        widget({
          rv: '2',
          status: { ready: false, phase: 'Running' },
          managedFields: [mf('user', 't0'), owns('ctrl', 't1', 'ready'), owns('other', 't2', 'phase')],
        }),
      ),
      want: true,
    },
    {
      // the defect this filter once had: the other manager's entry has the same time and field set in both
      // versions (two writes within one second), so only the values tell the change
      name: "ignoreOwnStatusWrites passes another manager's second write within the same second",
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget({
          status: { ready: false, phase: 'Deploying' },
          managedFields: [mf('user', 't0'), owns('ctrl', 't1', 'ready'), owns('other', 't2', 'phase')],
        }),
        widget({
          rv: '2',
          status: { ready: false, phase: 'Running' },
          managedFields: [mf('user', 't0'), owns('ctrl', 't1', 'ready'), owns('other', 't2', 'phase')],
        }),
      ),
      want: true,
    },
    {
      // a JSON patch `remove` (or a merge patch null) by someone else: no ownership taken, no value left,
      // the rest of the status as it was; only our field set shows it
      name: 'ignoreOwnStatusWrites passes our own status field removed by someone else',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget({ status: { ready: true, phase: 'Running' }, managedFields: [owns('ctrl', 't1', 'ready', 'phase')] }),
        widget({ rv: '2', status: { ready: true }, managedFields: [owns('ctrl', 't1', 'ready')] }),
      ),
      want: true,
    },
    {
      name: 'ignoreOwnStatusWrites passes a change to a field we share with another manager',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget({
          status: { ready: false },
          managedFields: [owns('ctrl', 't1', 'ready'), owns('other', 't1', 'ready')],
        }),
        widget({
          rv: '2',
          status: { ready: true },
          managedFields: [owns('ctrl', 't1', 'ready'), owns('other', 't1', 'ready')],
        }),
      ),
      want: true,
    },
    {
      name: "ignoreOwnStatusWrites tells our condition from another manager's in one conditions list",
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(conditionsWidget('False', 'False'), conditionsWidget('False', 'True')),
      want: true,
    },
    {
      name: 'ignoreOwnStatusWrites drops a change to our own condition in a shared conditions list',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(conditionsWidget('False', 'False'), conditionsWidget('True', 'False')),
      want: false,
    },
    {
      name: 'ignoreOwnStatusWrites passes a status write when we never wrote status',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(widget(), widget({ rv: '2', status: { ready: true }, managedFields: [mf('user', 't0')] })),
      want: true,
    },
    {
      name: 'ignoreOwnStatusWrites passes a spec change',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: update(
        widget(),
        widget({ gen: 2, rv: '2', spec: { size: 2 }, managedFields: [mf('user', 't0'), mf('ctrl', 't1', 'status')] }),
      ),
      want: true,
    },
    {
      name: 'ignoreOwnStatusWrites passes adds',
      pred: ignoreOwnStatusWrites('ctrl'),
      ev: { type: 'add', obj: widget() },
      want: true,
    },
    {
      name: 'ignoreFinalizerChange drops our finalizer being added (and its managedFields entry)',
      pred: ignoreFinalizerChange(OURS),
      ev: update(
        widget(),
        withMeta(widget({ rv: '2', managedFields: [mf('user', 't0'), mf('ctrl', 't1')] }), { finalizers: [OURS] }),
      ),
      want: false,
    },
    {
      name: 'ignoreFinalizerChange drops our finalizer being removed from an object being deleted',
      pred: ignoreFinalizerChange(OURS),
      ev: update(
        withMeta(widget(), { finalizers: ['other/x', OURS], deletionTimestamp: 't9' }),
        withMeta(widget({ rv: '2' }), { finalizers: ['other/x'], deletionTimestamp: 't9' }),
      ),
      want: false,
    },
    {
      name: 'ignoreFinalizerChange passes our finalizer removed from a live object (somebody else took it)',
      pred: ignoreFinalizerChange(OURS),
      ev: update(
        withMeta(widget(), { finalizers: ['other/x', OURS] }),
        withMeta(widget({ rv: '2' }), { finalizers: ['other/x'] }),
      ),
      want: true,
    },
    {
      name: 'ignoreFinalizerChange passes another finalizer moving',
      pred: ignoreFinalizerChange(OURS),
      ev: update(widget(), withMeta(widget({ rv: '2' }), { finalizers: ['other/x'] })),
      want: true,
    },
    {
      name: 'ignoreFinalizerChange passes our finalizer with a spec change',
      pred: ignoreFinalizerChange(OURS),
      ev: update(widget(), withMeta(widget({ rv: '2', gen: 2, spec: { size: 2 } }), { finalizers: [OURS] })),
      want: true,
    },
    {
      name: 'ignoreFinalizerChange passes the deletion that comes with it',
      pred: ignoreFinalizerChange(OURS),
      ev: update(
        withMeta(widget(), { finalizers: [OURS, 'other/x'] }),
        withMeta(widget({ rv: '2' }), { finalizers: ['other/x'], deletionTimestamp: '2026-01-01T00:00:00Z' }),
      ),
      want: true,
    },
    {
      name: 'ignoreFinalizerChange passes updates that leave finalizers alone',
      pred: ignoreFinalizerChange(OURS),
      ev: update(widget(), widget({ rv: '2', status: { ready: true } })),
      want: true,
    },
    {
      name: 'and() needs all',
      pred: and(generationChanged(), labelsChanged()),
      ev: update(widget(), widget({ gen: 2 })),
      want: false,
    },
    {
      name: 'or() needs one',
      pred: or(generationChanged(), labelsChanged()),
      ev: update(widget(), widget({ gen: 2 })),
      want: true,
    },
    { name: 'not() inverts', pred: not(generationChanged()), ev: update(widget(), widget({ gen: 2 })), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(c.pred(c.ev), c.want));
  }
});
