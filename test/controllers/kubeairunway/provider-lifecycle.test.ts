// The provider's lifecycle decision, as a table: given the deployment, its upstream object and the time,
// what to do (pause, add the finalizer, sync, delete, wait, remove the finalizer, with or without the
// timeout) for a deletion and for a deployment that moved to another provider.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  decideLifecycle,
  type LifecycleStep,
  type UpstreamView,
} from '../../../src/controllers/kubeairunway/provider/lifecycle.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const TIMEOUT = 5 * 60_000;
const FIN = 'kubeairunway.ai/kaito-provider';
const iso = (ms: number) => new Date(ms).toISOString();

interface MdOpts {
  selected?: string;
  finalizers?: string[];
  deleting?: number;
  paused?: string;
}

function md(o: MdOpts = {}): ModelDeployment {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: {
      name: 'llm',
      namespace: 'ns',
      uid: 'md-uid',
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
      ...(o.deleting !== undefined ? { deletionTimestamp: iso(o.deleting) } : {}),
      ...(o.paused !== undefined ? { annotations: { 'kubeairunway.ai/reconcile-paused': o.paused } } : {}),
    },
    spec: { model: { id: 'm' } },
    ...(o.selected !== undefined ? { status: { provider: { name: o.selected } } } : {}),
  };
}

function ws(o: { owner?: string; deleting?: number; finalizers?: string[] } = {}): KubeObject {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: {
      name: 'llm',
      namespace: 'ns',
      uid: 'ws-uid',
      ownerReferences: [
        {
          apiVersion: 'kubeairunway.ai/v1alpha1',
          kind: 'ModelDeployment',
          name: 'llm',
          uid: o.owner ?? 'md-uid',
          controller: true,
        },
      ],
      ...(o.deleting !== undefined ? { deletionTimestamp: iso(o.deleting) } : {}),
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
    },
  };
}

const absent: UpstreamView = { state: 'absent' };
const crdMissing: UpstreamView = { state: 'crdMissing' };
const present = (object: KubeObject): UpstreamView => ({ state: 'present', object });

type Want = LifecycleStep['do'] | Partial<Record<string, unknown>>;

const cases: Array<[string, ModelDeployment, UpstreamView, Want]> = [
  ['another provider selected, no finalizer of ours → ignore', md({ selected: 'dynamo' }), absent, 'ignore'],
  ['no selection yet → ignore', md(), absent, 'ignore'],
  ['selected, no finalizer yet → addFinalizer', md({ selected: 'kaito' }), absent, 'addFinalizer'],
  ['selected with finalizer → sync', md({ selected: 'kaito', finalizers: [FIN] }), absent, 'sync'],
  [
    'selected with finalizer, object present → sync',
    md({ selected: 'kaito', finalizers: [FIN] }),
    present(ws()),
    'sync',
  ],
  ['paused → paused, nothing else', md({ selected: 'kaito', paused: 'true' }), absent, 'paused'],
  [
    'pause annotation not exactly "true" → not paused',
    md({ selected: 'kaito', finalizers: [FIN], paused: 'yes' }),
    absent,
    'sync',
  ],
  [
    'paused while being deleted → cleanup all the same (deletion comes before pause)',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW - 10_000, paused: 'true' }),
    present(ws()),
    'deleteUpstream',
  ],
  [
    'paused while being deleted, the upstream object stuck past 5 minutes → finalizer removed, object named as orphaned',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW - 5 * 60_000, paused: 'true' }),
    present(ws({ deleting: NOW - 5 * 60_000, finalizers: ['kaito.sh/workspace'] })),
    { do: 'removeFinalizer', cause: 'deletion' },
  ],
  [
    'paused while moved to another provider → paused (a release is not a deletion)',
    md({ selected: 'dynamo', finalizers: [FIN], paused: 'true' }),
    present(ws()),
    'paused',
  ],
  ['deleting, finalizer already gone → ignore', md({ selected: 'kaito', deleting: NOW }), present(ws()), 'ignore'],
  [
    'deleting, object owned → deleteUpstream',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW }),
    present(ws()),
    { do: 'deleteUpstream', cause: 'deletion' },
  ],
  [
    'deleting, object gone → removeFinalizer',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW }),
    absent,
    { do: 'removeFinalizer', cause: 'deletion', orphaned: undefined },
  ],
  [
    'deleting, CRD missing → removeFinalizer (nothing can exist)',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW }),
    crdMissing,
    { do: 'removeFinalizer', cause: 'deletion' },
  ],
  [
    'deleting, object not ours → removeFinalizer, left alone',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW }),
    present(ws({ owner: 'other' })),
    { do: 'removeFinalizer', foreign: true },
  ],
  [
    'deleting, object going away within the timeout → wait, poll 5 s',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW - 60_000 }),
    present(ws({ deleting: NOW - 59_000, finalizers: ['kaito.sh/stuck'] })),
    { do: 'waitForUpstream', cause: 'deletion', requeueAfterMs: 5_000 },
  ],
  [
    'deleting, 2 s left on the clock → wait exactly that long',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW - TIMEOUT + 2_000 }),
    present(ws({ deleting: NOW - 60_000 })),
    { do: 'waitForUpstream', requeueAfterMs: 2_000 },
  ],
  [
    'deleting, stuck past the 5 minutes since deletionTimestamp → removeFinalizer, orphaned',
    md({ selected: 'kaito', finalizers: [FIN], deleting: NOW - TIMEOUT }),
    present(ws({ deleting: NOW - 1_000, finalizers: ['kaito.sh/stuck'] })),
    { do: 'removeFinalizer', cause: 'deletion', orphaned: 'ws-uid' },
  ],
  [
    'another provider now selected, our finalizer still on → deleteUpstream (release)',
    md({ selected: 'dynamo', finalizers: [FIN] }),
    present(ws()),
    { do: 'deleteUpstream', cause: 'release' },
  ],
  [
    'released, object gone → removeFinalizer (release)',
    md({ selected: 'dynamo', finalizers: [FIN] }),
    absent,
    { do: 'removeFinalizer', cause: 'release' },
  ],
  [
    'released, object stuck past the timeout since ITS deletion → removeFinalizer, orphaned',
    md({ selected: 'dynamo', finalizers: [FIN] }),
    present(ws({ deleting: NOW - TIMEOUT - 1 })),
    { do: 'removeFinalizer', cause: 'release', orphaned: 'ws-uid' },
  ],
  [
    'released, object going away → wait',
    md({ selected: 'dynamo', finalizers: [FIN] }),
    present(ws({ deleting: NOW - 1_000 })),
    { do: 'waitForUpstream', cause: 'release' },
  ],
  [
    'selection cleared (empty) with our finalizer → ignore, not a switch',
    md({ selected: '', finalizers: [FIN] }),
    present(ws()),
    'ignore',
  ],
  [
    "other providers' finalizers do not count as ours",
    md({ selected: 'dynamo', finalizers: ['kubeairunway.ai/dynamo-provider'] }),
    present(ws()),
    'ignore',
  ],
];

describe('decideLifecycle', () => {
  for (const [name, deployment, upstream, want] of cases) {
    it(name, () => {
      const step = decideLifecycle({
        md: deployment,
        provider: 'kaito',
        upstream,
        now: NOW,
        finalizerTimeoutMs: TIMEOUT,
      });
      if (typeof want === 'string') {
        assert.equal(step.do, want);
        return;
      }
      for (const [k, v] of Object.entries(want)) {
        const got = (step as Record<string, unknown>)[k];
        if (k === 'orphaned' && typeof v === 'string')
          assert.equal((got as KubeObject | undefined)?.metadata.uid, v, 'orphaned object');
        else assert.deepEqual(got, v, `${k} of ${JSON.stringify(step.do)}`);
      }
    });
  }

  it('a shorter (injected) timeout ends the wait sooner', () => {
    const deployment = md({ selected: 'kaito', finalizers: [FIN], deleting: NOW - 3_000 });
    const upstream = present(ws({ deleting: NOW - 3_000, finalizers: ['stuck'] }));
    assert.equal(
      decideLifecycle({ md: deployment, provider: 'kaito', upstream, now: NOW, finalizerTimeoutMs: 5_000 }).do,
      'waitForUpstream',
    );
    assert.equal(
      decideLifecycle({ md: deployment, provider: 'kaito', upstream, now: NOW, finalizerTimeoutMs: 2_000 }).do,
      'removeFinalizer',
    );
  });
});
