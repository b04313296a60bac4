// Wire-level API semantics: watch from "", "0" and a resourceVersion, bookmarks, timeoutSeconds, 410
// for compacted history, selector transitions; list pagination over a consistent snapshot; metadata
// rules; dryRun; fieldValidation warnings; Status errors with causes; discovery and OpenAPI shapes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { partsOf } from '../src/handle.ts';
import { type ApiServer, startApiServer } from '../src/index.ts';
import { openWatch, raw } from '../src/testing/index.ts';

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});
const CMS = '/api/v1/namespaces/default/configmaps';

describe('API semantics', () => {
  let s: ApiServer;
  before(async () => {
    s = await startApiServer({ port: 0, bookmarkIntervalMs: 200 });
  });
  after(async () => {
    await s?.close();
  });

  it('watch from "" sends current objects, then changes; objects leaving the selector are DELETED', async () => {
    await raw(s, 'POST', CMS, cm('w-a', { team: 'x' }));
    const w = openWatch(s, `${CMS}?watch=true&labelSelector=team%3Dx`);
    await w.next((e) => e.type === 'ADDED' && e.object.metadata.name === 'w-a');
    await raw(s, 'POST', CMS, cm('w-b', { team: 'y' }));
    await raw(
      s,
      'PATCH',
      `${CMS}/w-b`,
      { metadata: { labels: { team: 'x' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await w.next((e) => e.type === 'ADDED' && e.object.metadata.name === 'w-b');
    await raw(
      s,
      'PATCH',
      `${CMS}/w-a`,
      { metadata: { labels: { team: 'z' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await w.next((e) => e.type === 'DELETED' && e.object.metadata.name === 'w-a');
    w.stop();
  });

  it('watch resumes after a resourceVersion, sends bookmarks, honours timeoutSeconds, and answers 410 for compacted history', async () => {
    const first = (await raw(s, 'POST', CMS, cm('r-1'))).json();
    await raw(s, 'POST', CMS, cm('r-2'));
    const w = openWatch(
      s,
      `${CMS}?watch=true&resourceVersion=${first.metadata.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=1`,
    );
    const ev = await w.next((e) => e.type === 'ADDED');
    assert.equal(ev.object.metadata.name, 'r-2', 'only events after the given resourceVersion');
    await w.next((e) => e.type === 'BOOKMARK');
    assert.equal(await w.ended, 200, 'the stream ends cleanly after timeoutSeconds');

    partsOf(s).core.store.compact();
    const old = openWatch(s, `${CMS}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    const err = await old.next((e) => e.type === 'ERROR');
    assert.equal(err.object.code, 410);
    assert.equal(err.object.reason, 'Expired');
  });

  it('sendInitialEvents ends the initial list with an annotated bookmark', async () => {
    const w = openWatch(
      s,
      `${CMS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
    );
    const bm = await w.next((e) => e.type === 'BOOKMARK');
    assert.equal(bm.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    w.stop();
  });

  it('paginates a list over a consistent snapshot', async () => {
    // Secrets: the namespace's own ConfigMap (kube-root-ca.crt) would make the counts depend on the ServiceAccount controller
    const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name } });
    await raw(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pages' } });
    for (let i = 0; i < 25; i++)
      await raw(s, 'POST', '/api/v1/namespaces/pages/secrets', secret(`p-${String(i).padStart(2, '0')}`));
    const p1 = (await raw(s, 'GET', '/api/v1/namespaces/pages/secrets?limit=10')).json();
    assert.equal(p1.items.length, 10);
    assert.equal(p1.metadata.remainingItemCount, 15);
    // a write between pages is not visible in the rest of this list
    await raw(s, 'POST', '/api/v1/namespaces/pages/secrets', secret('p-00a'));
    const p2 = (
      await raw(s, 'GET', `/api/v1/namespaces/pages/secrets?limit=10&continue=${p1.metadata.continue}`)
    ).json();
    const p3 = (
      await raw(s, 'GET', `/api/v1/namespaces/pages/secrets?limit=10&continue=${p2.metadata.continue}`)
    ).json();
    const names = [...p1.items, ...p2.items, ...p3.items].map((i: any) => i.metadata.name);
    assert.equal(names.length, 25);
    assert.ok(!names.includes('p-00a'));
    assert.equal(p3.metadata.continue, undefined);
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    const bad = await raw(s, 'GET', '/api/v1/namespaces/pages/secrets?limit=10&continue=garbage');
    assert.equal(bad.status, 400);
  });

  it('keeps metadata rules: generateName, stale resourceVersion conflict, generation, immutable uid', async () => {
    const created = (
      await raw(s, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } })
    ).json();
    assert.match(created.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.equal(created.metadata.generation, undefined, 'ConfigMaps have no generation in kube 1.32');
    const stale = { ...created, metadata: { ...created.metadata, resourceVersion: '1' }, data: { a: 'b' } };
    const conflict = await raw(s, 'PUT', `${CMS}/${created.metadata.name}`, stale);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json().reason, 'Conflict');
    const moved = await raw(s, 'PUT', `${CMS}/${created.metadata.name}`, {
      ...created,
      metadata: { ...created.metadata, uid: 'other' },
    });
    assert.equal(moved.json().metadata.uid, created.metadata.uid);
    const noop = await raw(s, 'PUT', `${CMS}/${created.metadata.name}`, moved.json());
    assert.equal(
      noop.json().metadata.resourceVersion,
      moved.json().metadata.resourceVersion,
      'a no-op write does not bump resourceVersion',
    );
  });

  it('keeps metadata.generation only for the kinds whose strategy does, bumped by what bumps it there', async () => {
    const dep = (annotations: Record<string, string>, replicas: number) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gen-dep', annotations },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'g' } },
        template: { metadata: { labels: { app: 'g' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const DEPS = '/apis/apps/v1/namespaces/default/deployments';
    const SVCS = '/api/v1/namespaces/default/services';
    const PODS = '/api/v1/namespaces/default/pods';
    const cases: Array<{
      what: string;
      path: string;
      create: unknown;
      update: (o: any) => unknown;
      created: number | undefined;
      updated: number | undefined;
    }> = [
      {
        what: 'Deployment: spec change',
        path: DEPS,
        create: dep({}, 1),
        update: (o) => ({ ...o, spec: { ...o.spec, replicas: 2 } }),
        created: 1,
        updated: 2,
      },
      {
        what: 'Deployment: an annotation change bumps it too',
        path: DEPS,
        create: dep({}, 1),
        update: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { a: 'b' } } }),
        created: 1,
        updated: 2,
      },
      {
        what: 'Deployment: a label change does not',
        path: DEPS,
        create: dep({}, 1),
        update: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } } }),
        created: 1,
        updated: 1,
      },
      {
        what: 'Service: none',
        path: SVCS,
        create: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gen-svc' }, spec: { ports: [{ port: 80 }] } },
        update: (o) => ({ ...o, spec: { ...o.spec, ports: [{ port: 81 }] } }),
        created: undefined,
        updated: undefined,
      },
      {
        what: 'Pod: none',
        path: PODS,
        create: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'gen-pod' },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
        update: (o) => ({ ...o, spec: { ...o.spec, activeDeadlineSeconds: 30 } }),
        created: undefined,
        updated: undefined,
      },
      {
        what: 'ConfigMap: a creator-set value is kept, never bumped',
        path: CMS,
        create: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gen-cm', generation: 7 } },
        update: (o) => ({ ...o, data: { a: 'b' } }),
        created: 7,
        updated: 7,
      },
    ];
    for (const c of cases) {
      const name = (c.create as { metadata: { name: string } }).metadata.name;
      await raw(s, 'DELETE', `${c.path}/${name}?gracePeriodSeconds=0`);
      const created = await raw(s, 'POST', c.path, c.create);
      assert.equal(created.status, 201, `${c.what}: ${created.text}`);
      assert.equal(created.json().metadata.generation, c.created, `${c.what}: on create`);
      const updated = await raw(s, 'PUT', `${c.path}/${name}`, c.update(created.json()));
      assert.equal(updated.status, 200, `${c.what}: ${updated.text}`);
      assert.equal(updated.json().metadata.generation, c.updated, `${c.what}: after the update`);
      await raw(s, 'DELETE', `${c.path}/${name}?gracePeriodSeconds=0`);
    }
  });

  it("a Deployment /status write may change annotations but not labels, and bumps no generation (kube's deployment status strategy)", async () => {
    const DEPS = '/apis/apps/v1/namespaces/default/deployments';
    const created = await raw(s, 'POST', DEPS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'status-ann' },
      spec: {
        selector: { matchLabels: { app: 's' } },
        template: { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    assert.equal(created.status, 201, created.text);
    const merge = { contentType: 'application/merge-patch+json' };
    const patched = await raw(
      s,
      'PATCH',
      `${DEPS}/status-ann/status?fieldManager=kube-controller-manager`,
      {
        metadata: { annotations: { 'deployment.kubernetes.io/revision': '1' }, labels: { l: 'm' } },
        status: { replicas: 0 },
      },
      merge,
    );
    assert.equal(patched.status, 200, patched.text);
    const d = patched.json();
    assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.equal(d.metadata.labels, undefined, 'labels are reset on /status');
    assert.equal(d.metadata.generation, 1);
    const entry = d.metadata.managedFields.find((m: any) => m.manager === 'kube-controller-manager');
    assert.deepEqual(entry.fieldsV1['f:metadata'], {
      'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} },
    });
    const viaMain = await raw(s, 'PATCH', `${DEPS}/status-ann`, { metadata: { annotations: { other: 'x' } } }, merge);
    assert.equal(
      viaMain.json().metadata.generation,
      2,
      "an annotation change on the main resource bumps a Deployment's generation",
    );
    await raw(s, 'DELETE', `${DEPS}/status-ann`);
  });

  it("merges a Secret's stringData into data (base64) and never stores stringData", async () => {
    const SECRETS = '/api/v1/namespaces/default/secrets';
    const created = await raw(s, 'POST', SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sd' },
      data: { a: 'b2xk', keep: 'eA==' },
      stringData: { a: 'new', token: 'hf_ü' },
    });
    assert.equal(created.status, 201, created.text);
    const stored = (await raw(s, 'GET', `${SECRETS}/sd`)).json();
    assert.equal(stored.stringData, undefined);
    assert.deepEqual(stored.data, {
      a: Buffer.from('new').toString('base64'),
      keep: 'eA==',
      token: Buffer.from('hf_ü').toString('base64'),
    });
    const updated = await raw(s, 'PUT', `${SECRETS}/sd`, { ...stored, stringData: { keep: 'y' } });
    assert.equal(updated.json().data.keep, Buffer.from('y').toString('base64'));
    assert.equal(updated.json().stringData, undefined);
    await raw(s, 'DELETE', `${SECRETS}/sd`);
  });

  it('treats a resourceVersion in a server-side apply configuration as a precondition (409 when stale)', async () => {
    const apply = { contentType: 'application/apply-patch+yaml' };
    const path = `${CMS}/ssa-rv?fieldManager=t`;
    const first = await raw(
      s,
      'PATCH',
      path,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-rv' }, data: { a: '1' } },
      apply,
    );
    assert.equal(first.status, 201, first.text);
    const rv = first.json().metadata.resourceVersion;
    const fresh = await raw(
      s,
      'PATCH',
      path,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-rv', resourceVersion: rv }, data: { a: '2' } },
      apply,
    );
    assert.equal(fresh.status, 200, fresh.text);
    const stale = await raw(
      s,
      'PATCH',
      path,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-rv', resourceVersion: rv }, data: { a: '3' } },
      apply,
    );
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.json().reason, 'Conflict');
    await raw(s, 'DELETE', `${CMS}/ssa-rv`);
  });

  it('rejects invalid names and labels with one cause per field', async () => {
    const r = await raw(s, 'POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'Bad_Name', labels: { 'bad key!': 'v', ok: 'x'.repeat(70) } },
    });
    assert.equal(r.status, 422);
    const st = r.json();
    assert.equal(st.kind, 'Status');
    assert.equal(st.reason, 'Invalid');
    const fields = st.details.causes.map((c: any) => c.field).sort();
    assert.deepEqual(fields, ['metadata.labels', 'metadata.labels', 'metadata.name']);
  });

  it('honours dryRun=All and reports unknown fields as warnings or errors per fieldValidation', async () => {
    const dry = await raw(s, 'POST', `${CMS}?dryRun=All`, cm('dry'));
    assert.equal(dry.status, 201);
    assert.equal((await raw(s, 'GET', `${CMS}/dry`)).status, 404);
    await raw(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'knobs.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'knobs', kind: 'Knob' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
              },
            },
          },
        ],
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    const body = { apiVersion: 'example.com/v1', kind: 'Knob', metadata: { name: 'k1' }, spec: { a: 'x', b: 'y' } };
    const warn = await raw(s, 'POST', '/apis/example.com/v1/namespaces/default/knobs?fieldValidation=Warn', body);
    assert.equal(warn.status, 201);
    assert.match(String(warn.headers.warning), /unknown field \\"spec\.b\\"/);
    assert.equal(warn.json().spec.b, undefined, 'pruned');
    const strict = await raw(s, 'POST', '/apis/example.com/v1/namespaces/default/knobs?fieldValidation=Strict', {
      ...body,
      metadata: { name: 'k2' },
    });
    assert.equal(strict.status, 400);
    assert.match(strict.json().message, /strict decoding error: unknown field "spec.b"/);
  });

  it('answers errors as Status objects: 404, 405, 413, 415 and malformed bodies', async () => {
    const nf = await raw(s, 'GET', `${CMS}/missing`);
    assert.deepEqual(
      [nf.status, nf.json().reason, nf.json().message],
      [404, 'NotFound', 'configmaps "missing" not found'],
    );
    const noType = await raw(s, 'GET', '/apis/nope.example.com/v1/things');
    assert.equal(noType.status, 404);
    const bad = await raw(s, 'POST', CMS, '{"apiVersion": "v1", "kind": ');
    assert.equal(bad.status, 400);
    assert.equal(bad.json().kind, 'Status');
    const big = await raw(s, 'POST', CMS, JSON.stringify(cm('big', {}, { x: 'a'.repeat(3 * 1024 * 1024 + 10) })));
    assert.equal(big.status, 413);
    const smp = await raw(
      s,
      'PATCH',
      '/apis/example.com/v1/namespaces/default/knobs/k1',
      {},
      { contentType: 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 415);
    const wrongKind = await raw(s, 'POST', CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    assert.equal(wrongKind.status, 400);
    const noNs = await raw(s, 'POST', '/api/v1/namespaces/nowhere/configmaps', cm('x'));
    assert.deepEqual([noNs.status, noNs.json().message], [404, 'namespaces "nowhere" not found']);
    const badSel = await raw(s, 'GET', `${CMS}?labelSelector=a%20in%20(`);
    assert.equal(badSel.status, 400);
    const unauth = await raw(s, 'GET', CMS, undefined, { token: 'wrong' });
    assert.equal(unauth.status, 401);
  });

  it('serves aggregated and legacy discovery and an OpenAPI v3 document with fieldValidation', async () => {
    const agg = await raw(s, 'GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.match(String(agg.headers['content-type']), /as=APIGroupDiscoveryList/);
    const apps = agg.json().items.find((g: any) => g.metadata.name === 'apps');
    const deploy = apps.versions[0].resources.find((r: any) => r.resource === 'deployments');
    assert.deepEqual(deploy.shortNames, ['deploy']);
    assert.deepEqual(
      deploy.subresources.map((x: any) => x.subresource),
      ['scale', 'status'],
    );
    const legacy = (await raw(s, 'GET', '/apis/apps/v1')).json();
    assert.ok(legacy.resources.some((r: any) => r.name === 'deployments/scale' && r.kind === 'Scale'));
    const index = (await raw(s, 'GET', '/openapi/v3')).json();
    const url = index.paths['apis/apps/v1'].serverRelativeURL;
    const doc = (await raw(s, 'GET', url)).json();
    const patchOp = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    assert.deepEqual(patchOp['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.ok(patchOp.parameters.some((p: any) => p.name === 'fieldValidation' && p.in === 'query'));
  });

  it('serves the scale subresource and Table output', async () => {
    await raw(s, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'sc' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    const scale = (await raw(s, 'GET', '/apis/apps/v1/namespaces/default/deployments/sc/scale')).json();
    assert.deepEqual(
      [scale.kind, scale.apiVersion, scale.spec.replicas, scale.status.selector],
      ['Scale', 'autoscaling/v1', 1, 'a=b'],
    );
    await raw(
      s,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/sc/scale',
      { spec: { replicas: 4 } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal((await raw(s, 'GET', '/apis/apps/v1/namespaces/default/deployments/sc')).json().spec.replicas, 4);
    const table = (
      await raw(s, 'GET', '/apis/apps/v1/namespaces/default/deployments', undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      })
    ).json();
    assert.equal(table.kind, 'Table');
    assert.deepEqual(
      table.columnDefinitions.slice(0, 5).map((c: any) => c.name),
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age'],
    );
    assert.equal(table.rows[0].cells[0], 'sc');
    assert.equal(table.rows[0].object.kind, 'PartialObjectMetadata');
  });

  it('serves core/v1 and events.k8s.io/v1 Events as two views of the same objects', async () => {
    const created = await raw(s, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev1' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'modelplane.io/test',
      reportingInstance: 'i',
      action: 'Reconcile',
      reason: 'Tested',
      note: 'hello',
      type: 'Normal',
      regarding: { kind: 'ConfigMap', namespace: 'default', name: 'w-a', apiVersion: 'v1' },
    });
    assert.equal(created.status, 201, created.text);
    const core = (await raw(s, 'GET', '/api/v1/namespaces/default/events/ev1')).json();
    assert.equal(core.message, 'hello');
    assert.equal(core.involvedObject.name, 'w-a');
    const filtered = (
      await raw(s, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dw-a')
    ).json();
    assert.equal(filtered.items.length, 1);
    const v1 = (
      await raw(s, 'GET', '/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dw-a')
    ).json();
    assert.equal(v1.items[0].note, 'hello');
  });

  it('serves a CRD in several versions, storing the storage version (conversion strategy None)', async () => {
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
      },
    };
    const r = await raw(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'dials.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'dials', kind: 'Dial' },
        versions: [
          { name: 'v1alpha1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
          { name: 'v0', served: false, storage: false, schema },
        ],
      },
    });
    assert.equal(r.status, 201, r.text);
    await new Promise((res) => setTimeout(res, 20));
    const created = await raw(s, 'POST', '/apis/example.com/v1alpha1/namespaces/default/dials', {
      apiVersion: 'example.com/v1alpha1',
      kind: 'Dial',
      metadata: { name: 'd1' },
      spec: { size: 3 },
    });
    assert.equal(created.json().apiVersion, 'example.com/v1alpha1');
    const asV1 = (await raw(s, 'GET', '/apis/example.com/v1/namespaces/default/dials/d1')).json();
    assert.deepEqual([asV1.apiVersion, asV1.spec.size], ['example.com/v1', 3]);
    assert.equal(
      partsOf(s).core.store.get('example.com/dials', 'default', 'd1')?.apiVersion,
      'example.com/v1',
      'stored in the storage version',
    );
    assert.equal(
      (await raw(s, 'GET', '/apis/example.com/v0/namespaces/default/dials/d1')).status,
      404,
      'unserved version',
    );
    const crd = (
      await raw(s, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/dials.example.com')
    ).json();
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.equal(crd.status.conditions.find((c: any) => c.type === 'Established').status, 'True');
    const disc = (await raw(s, 'GET', '/apis/example.com')).json();
    assert.equal(disc.preferredVersion.version, 'v1');
  });
});

describe('deeply nested YAML bodies', () => {
  it('are refused with 400 (and never take the server down), however often they are sent', async () => {
    const { decodeBody } = await import('../src/http/body.ts');
    const deep = '['.repeat(999) + ']'.repeat(998);
    for (let i = 0; i < 3; i++)
      assert.throws(
        () => decodeBody(Buffer.from(deep), 'application/apply-patch+yaml'),
        /nests deeper than the maximum of 500 levels/,
      );
    let block = '';
    for (let i = 0; i < 600; i++) block += `${' '.repeat(i)}k${i}:\n`;
    assert.throws(() => decodeBody(Buffer.from(block), 'application/yaml'), /nests deeper/);
    assert.deepEqual(decodeBody(Buffer.from('a:\n  b:\n    - c: 1\n'), 'application/yaml'), { a: { b: [{ c: 1 }] } });
  });
});
