import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '@modelplane/runtime/client';
import { writeOwnedStatus } from '../../src/engine/index.ts';
import { FakeCluster } from './helpers/fake-cluster.ts';
import { Widgets, widget } from './helpers/scenario.ts';

describe('writeOwnedStatus: the one status-write path', () => {
  it('writes only what changed, with the resourceVersion as a precondition', async () => {
    const cluster = new FakeCluster('writer');
    const w = cluster.put(widget());
    assert.equal(await writeOwnedStatus(cluster.client, w, { phase: 'Ready' }, { fieldManager: 'writer' }), 'written');
    assert.equal(cluster.requests[0]!.body!.metadata.resourceVersion, w.metadata.resourceVersion);
    const stored = cluster.getObject(Widgets.apiVersion, Widgets.kind, 'w1', 'ns')!;
    // our managedFields entry says we own phase, and it is already Ready: no request
    assert.equal(
      await writeOwnedStatus(cluster.client, stored, { phase: 'Ready' }, { fieldManager: 'writer' }),
      'unchanged',
    );
    assert.equal(cluster.count('applyStatus'), 1);
  });

  it('a stale read loses with conflict, a deleted object is gone, anything else is thrown', async () => {
    const cluster = new FakeCluster('writer');
    const stale = cluster.put(widget());
    cluster.put(stale); // someone wrote it since: a new resourceVersion
    assert.equal(
      await writeOwnedStatus(cluster.client, stale, { phase: 'Ready' }, { fieldManager: 'writer' }),
      'conflict',
    );
    // without the precondition (a sole writer) the same write goes through
    assert.equal(
      await writeOwnedStatus(
        cluster.client,
        stale,
        { phase: 'Ready' },
        { fieldManager: 'writer', precondition: false },
      ),
      'written',
    );
    cluster.remove(Widgets.apiVersion, Widgets.kind, 'w1', 'ns');
    assert.equal(
      await writeOwnedStatus(cluster.client, stale, { phase: 'Gone' }, { fieldManager: 'writer', before: {} }),
      'gone',
    );
    const again = cluster.put(widget());
    cluster.faults.push(
      () => new ApiError({ code: 503, reason: 'ServiceUnavailable', message: 'etcd leader changed' }),
    );
    await assert.rejects(
      writeOwnedStatus(cluster.client, again, { phase: 'Ready' }, { fieldManager: 'writer' }),
      /etcd leader changed/,
    );
  });
});
