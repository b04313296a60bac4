// Field names that a plain JavaScript object already answers to ("constructor", "toString", …) are ordinary
// names to Kubernetes: a ConfigMap key, a label, a field of a custom resource. Every write path must store
// them like any other name (patch/schema.ts once looked fields up with `s.fields[key]`, which found
// Object.prototype's members, so managed-fields bookkeeping answered 500).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '../../src/index.ts';
import { raw } from '../../src/testing/index.ts';
import { createWidgetCrd, WIDGETS } from './fixture.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

describe('field names JavaScript objects inherit', () => {
  let s: ApiServer;
  before(async () => {
    s = await startApiServer({ port: 0 });
    await createWidgetCrd(s);
  });
  after(async () => {
    await s?.close();
  });

  it('are stored like any other name by create, update and every patch type', async () => {
    for (const key of NAMES) {
      const id = key.toLowerCase().replace(/_/g, '');
      const writes: [string, string, unknown, string?][] = [
        [
          'POST',
          CMS,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `cm-${id}`, labels: /^[a-z]/i.test(key) ? { [key]: 'v' } : {} },
            data: { [key]: 'x' },
          },
        ],
        ['PATCH', `${CMS}/cm-${id}`, { data: { [key]: 'merged' } }, 'application/merge-patch+json'],
        ['PATCH', `${CMS}/cm-${id}`, { data: { [key]: 'strategic' } }, 'application/strategic-merge-patch+json'],
        [
          'PATCH',
          `${CMS}/cm-${id}?fieldManager=t&force=true`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${id}` }, data: { [key]: 'applied' } },
          'application/apply-patch+yaml',
        ],
        [
          'POST',
          WIDGETS,
          {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name: `w-${id}` },
            spec: { [key]: { [key]: 1 } },
          },
        ],
        [
          'PUT',
          `${WIDGETS}/w-${id}`,
          {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name: `w-${id}` },
            spec: { [key]: { [key]: 2 } },
          },
        ],
        [
          'PATCH',
          `${WIDGETS}/w-${id}?fieldManager=t&force=true`,
          {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name: `w-${id}` },
            spec: { [key]: { [key]: 3 } },
          },
          'application/apply-patch+yaml',
        ],
      ];
      for (const [method, path, body, contentType] of writes) {
        // an update of a custom resource must name the resourceVersion it replaces, as on kube-apiserver
        if (method === 'PUT')
          (body as { metadata: Record<string, unknown> }).metadata.resourceVersion = (
            await raw(s, 'GET', path)
          ).json().metadata.resourceVersion;
        const r = await raw(s, method, path, body, contentType ? { contentType } : {});
        assert.ok(r.status < 300, `${method} ${path} with a field "${key}": ${r.status} ${r.text.slice(0, 200)}`);
      }
      assert.equal((await raw(s, 'GET', `${CMS}/cm-${id}`)).json().data[key], 'applied');
      assert.equal((await raw(s, 'GET', `${WIDGETS}/w-${id}`)).json().spec[key][key], 3);
    }
  });
});
