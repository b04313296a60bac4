// The shared texts of stored objects: a watch event is encoded once for every watcher it goes to, with the
// bytes JSON.stringify({ type, object }) would give, and never shared for an object that may still change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { watchEventJson } from '../../src/http/object-json.ts';

const stored = (name: string) =>
  Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '7' }, data: { k: 'é"\n' } });

describe('watch event bytes', () => {
  it('are the JSON line of { type, object }', () => {
    const obj = stored('a');
    assert.equal(
      watchEventJson('MODIFIED', obj).toString('utf8'),
      `${JSON.stringify({ type: 'MODIFIED', object: obj })}\n`,
    );
  });

  it('are one buffer for every watcher of one event, and new for the next event or another type', () => {
    const obj = stored('b');
    const first = watchEventJson('ADDED', obj);
    assert.equal(watchEventJson('ADDED', obj), first, 'the second watcher re-encoded the event');
    const asDeleted = watchEventJson('DELETED', obj);
    assert.notEqual(asDeleted, first);
    assert.match(asDeleted.toString(), /^\{"type":"DELETED"/);
    const next = stored('c');
    assert.match(watchEventJson('ADDED', next).toString(), /"name":"c"/);
  });

  it('are never shared for an object that is not stored (not frozen)', () => {
    const obj = { kind: 'ConfigMap', metadata: { name: 'mutable' } };
    const before = watchEventJson('ADDED', obj);
    obj.metadata.name = 'changed';
    const after = watchEventJson('ADDED', obj);
    assert.notEqual(after, before);
    assert.match(after.toString(), /"name":"changed"/);
  });
});
