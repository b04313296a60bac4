// What the AIM finalizers delete (pure): children that are not Ready and not already going; and the labels
// that find them, cut to a label value's 63 characters as the children were labelled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CACHE_ARTIFACT_CLEANUP,
  childrenToDelete,
  SERVICE_CACHE_CLEANUP,
} from '../../../src/controllers/aim/shared/finalizers.ts';

const child = (name: string, status?: string, deleting = false) => ({
  apiVersion: 'aim.eai.amd.com/v1alpha1',
  kind: 'AIMTemplateCache',
  metadata: { name, ...(deleting ? { deletionTimestamp: '2026-11-28T04:00:00Z' } : {}) },
  ...(status ? { status: { status } } : {}),
});

describe('AIM finalizers: what cleanup deletes', () => {
  it('everything not Ready, except what is already being deleted', () => {
    const all = [
      child('ready', 'Ready'),
      child('failed', 'Failed'),
      child('progressing', 'Progressing'),
      child('new'),
      child('degraded', 'Degraded'),
      child('not-available', 'NotAvailable'),
      child('going', 'Failed', true),
    ];
    assert.deepEqual(
      childrenToDelete(all).map((c) => c.metadata.name),
      ['failed', 'progressing', 'new', 'degraded', 'not-available'],
    );
  });

  it('one still coming up that another parent uses is left to it; a Failed one goes all the same', () => {
    const all = [child('in-use', 'Progressing'), child('in-use-failed', 'Failed'), child('unused', 'Progressing')];
    const inUse = (c: { metadata: { name: string } }) => c.metadata.name.startsWith('in-use');
    assert.deepEqual(
      childrenToDelete(all, inUse).map((c) => c.metadata.name),
      ['in-use-failed', 'unused'],
    );
  });

  it('who uses what: a service its cache (by reference or template), a cache its artifacts', () => {
    const cache = { ...child('c1', 'Progressing'), spec: { templateName: 'tpl' } };
    const svc = (status: object) => ({ apiVersion: 'v1', kind: 'AIMService', metadata: { name: 's' }, status });
    assert.ok(SERVICE_CACHE_CLEANUP.uses(svc({ cache: { templateCacheRef: { name: 'c1' } } }), cache));
    assert.ok(SERVICE_CACHE_CLEANUP.uses(svc({ resolvedTemplate: { name: 'tpl' } }), cache));
    assert.ok(!SERVICE_CACHE_CLEANUP.uses(svc({ resolvedTemplate: { name: 'other' } }), cache));
    const c = (artifacts: object) => ({
      apiVersion: 'v1',
      kind: 'AIMTemplateCache',
      metadata: { name: 'c' },
      status: { artifacts },
    });
    assert.ok(CACHE_ARTIFACT_CLEANUP.uses(c({ a1: { name: 'a1' } }), child('a1')));
    assert.ok(!CACHE_ARTIFACT_CLEANUP.uses(c({ a2: { name: 'a2' } }), child('a1')));
  });

  it('children are found by the label their parent gave them', () => {
    const long = 'x'.repeat(80);
    const parent = (name: string) => ({ apiVersion: 'v1', kind: 'X', metadata: { name } });
    assert.equal(SERVICE_CACHE_CLEANUP.selector(parent('chat')), 'aim.eai.amd.com/service=chat');
    assert.equal(SERVICE_CACHE_CLEANUP.selector(parent(long)), `aim.eai.amd.com/service=${'x'.repeat(63)}`);
    assert.equal(CACHE_ARTIFACT_CLEANUP.selector(parent('c')), 'aim.eai.amd.com/template-cache.name=c');
    assert.equal(SERVICE_CACHE_CLEANUP.finalizer, 'aim.eai.amd.com/template-cache-cleanup');
    assert.equal(CACHE_ARTIFACT_CLEANUP.finalizer, 'aim.eai.amd.com/artifactcleanup');
  });
});
