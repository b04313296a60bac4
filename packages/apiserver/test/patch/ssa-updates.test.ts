import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../src/errors.ts';
import {
  applyServerSide,
  type ManagedFieldsEntry,
  patchSchemaFor,
  recordUpdate,
  schemaFromOpenAPI,
} from '../../src/patch/index.ts';

type Obj = Record<string, any>;
const deploymentSchema = patchSchemaFor('apps', 'v1', 'Deployment');
let clock = 0;
const tick = () => new Date(Date.UTC(2024, 0, 1, 0, 0, ++clock));

function update(
  oldObj: Obj | undefined,
  newObj: Obj,
  manager: string,
  opts: { subresource?: string; schema?: unknown; apiVersion?: string } = {},
): Obj {
  const managedFields = recordUpdate({
    oldObj,
    newObj,
    manager,
    operation: 'Update',
    schema: opts.schema ?? deploymentSchema,
    now: tick(),
    apiVersion: opts.apiVersion ?? 'apps/v1',
    ...(opts.subresource ? { subresource: opts.subresource } : {}),
  });
  const out = structuredClone(newObj);
  out.metadata.uid ??= 'uid-1';
  if (managedFields.length > 0) out.metadata.managedFields = managedFields;
  else delete out.metadata.managedFields;
  return out;
}

function apply(live: Obj | undefined, manager: string, config: Obj, force = false): Obj {
  const r = applyServerSide({
    live,
    applied: config,
    manager,
    force,
    schema: deploymentSchema,
    now: tick(),
    apiVersion: 'apps/v1',
  });
  return r.object as Obj;
}

function conflict(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a conflict');
}

const fields = (obj: Obj, manager: string, subresource?: string) =>
  (obj.metadata.managedFields as ManagedFieldsEntry[]).find(
    (e) => e.manager === manager && e.subresource === subresource,
  )?.fieldsV1;

function deployment(spec: Obj, metadata: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', ...metadata },
    spec,
  };
}
const withTemplate = (image: string, extra: Obj = {}) =>
  deployment(
    {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }] } },
      ...extra,
    },
    { labels: { app: 'web' } },
  );

describe('managedFields of create and update', () => {
  it('a create owns every field it sets; maps and items it adds carry "." (kube’s Go zero value decides which)', () => {
    const obj = update(undefined, withTemplate('nginx'), 'kubectl-create');
    assert.deepEqual(obj.metadata.managedFields, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2024-01-01T00:00:01Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
              // Container.resources is a non-pointer struct, so a new container always brings it
              'f:spec': {
                'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} } },
              },
            },
          },
        },
      },
    ]);
  });

  it('a ConfigMap create records its data map as added, as kubectl create does', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { 'a.properties': 'x=1' },
    };
    const obj = update(undefined, cm, 'kubectl-create', {
      schema: patchSchemaFor('', 'v1', 'ConfigMap'),
      apiVersion: 'v1',
    });
    assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, { 'f:data': { '.': {}, 'f:a.properties': {} } });
  });

  it('an update takes the fields it changes away from their applier', () => {
    let obj = apply(undefined, 'kubectl', withTemplate('nginx:1'));
    const edited = structuredClone(obj);
    edited.spec.template.spec.containers[0].image = 'nginx:2';
    obj = update(obj, edited, 'kubectl-edit');
    assert.deepEqual(fields(obj, 'kubectl-edit'), {
      'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:image': {} } } } } },
    });
    assert.equal(JSON.stringify(fields(obj, 'kubectl')).includes('f:image'), false);
    const e = conflict(() => apply(obj, 'kubectl', withTemplate('nginx:1')));
    assert.equal(
      e.message,
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.template.spec.containers[name="nginx"].image',
    );
  });

  it('an update that changes nothing keeps managedFields and times as they were', () => {
    const obj = update(undefined, withTemplate('nginx'), 'kubectl-create');
    const again = update(obj, structuredClone(obj), 'kubectl-edit');
    assert.deepEqual(again.metadata.managedFields, obj.metadata.managedFields);
  });

  it('updates by one manager accumulate in one entry whose time moves forward', () => {
    const start = clock;
    let obj = update(undefined, deployment({ replicas: 1 }), 'ctl');
    obj = update(obj, { ...structuredClone(obj), spec: { replicas: 1, paused: true } }, 'ctl');
    assert.equal(obj.metadata.managedFields.length, 1);
    assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
    assert.equal(
      obj.metadata.managedFields[0].time,
      new Date(Date.UTC(2024, 0, 1, 0, 0, start + 2)).toISOString().replace('.000', ''),
    );
  });

  it('removing a field through an update removes it from every owner', () => {
    let obj = apply(undefined, 'kubectl', deployment({ replicas: 1, paused: true }));
    obj = update(obj, { ...structuredClone(obj), spec: { replicas: 1 } }, 'kubectl-edit');
    assert.deepEqual(fields(obj, 'kubectl'), { 'f:spec': { 'f:replicas': {} } });
    assert.equal(fields(obj, 'kubectl-edit'), undefined);
  });

  it('updates through /status are their own entry and own only .status', () => {
    let obj = update(undefined, deployment({ replicas: 1 }), 'ctl');
    const next = { ...structuredClone(obj), spec: { replicas: 7 }, status: { replicas: 1 } };
    obj = update(obj, next, 'ctl', { subresource: 'status' });
    assert.deepEqual(fields(obj, 'ctl'), { 'f:spec': { 'f:replicas': {} } });
    // status is a non-pointer struct of Deployment: it always exists, so only its fields are new
    assert.deepEqual(fields(obj, 'ctl', 'status'), { 'f:status': { 'f:replicas': {} } });
    assert.equal(
      obj.metadata.managedFields.find((e: ManagedFieldsEntry) => e.subresource === 'status').operation,
      'Update',
    );
  });

  it('updates through the main resource never own .status', () => {
    const obj = update(undefined, { ...deployment({ replicas: 1 }), status: { replicas: 3 } }, 'ctl');
    assert.deepEqual(fields(obj, 'ctl'), { 'f:spec': { 'f:replicas': {} } });
  });

  it('a replaced managedFields list is taken as is (kubectl’s client-side to server-side migration)', () => {
    const obj = update(undefined, withTemplate('nginx'), 'kubectl-client-side-apply');
    const migrated: ManagedFieldsEntry[] = [
      { ...obj.metadata.managedFields[0], manager: 'kubectl', operation: 'Apply' },
    ];
    const patched = {
      ...structuredClone(obj),
      metadata: { ...structuredClone(obj.metadata), managedFields: migrated },
    };
    const out = update(obj, patched, 'kubectl');
    assert.deepEqual(out.metadata.managedFields, migrated);
  });

  it('a list with one empty entry clears managedFields, and the object then stays untracked', () => {
    const obj = update(undefined, withTemplate('nginx'), 'kubectl-create');
    const cleared = update(
      obj,
      { ...structuredClone(obj), metadata: { ...structuredClone(obj.metadata), managedFields: [{}] } },
      'kubectl-patch',
    );
    assert.equal(cleared.metadata.managedFields, undefined);
    const later = update(
      cleared,
      { ...structuredClone(cleared), spec: { ...cleared.spec, replicas: 9 } },
      'kubectl-edit',
    );
    assert.equal(later.metadata.managedFields, undefined);
  });

  it('a subresource write cannot rewrite managedFields', () => {
    const obj = update(undefined, deployment({ replicas: 1 }), 'ctl');
    const out = update(
      obj,
      {
        ...structuredClone(obj),
        metadata: { ...structuredClone(obj.metadata), managedFields: [{}] },
        status: { replicas: 1 },
      },
      'ctl',
      { subresource: 'status' },
    );
    assert.deepEqual(fields(out, 'ctl'), { 'f:spec': { 'f:replicas': {} } });
  });

  it('the first apply to an untracked object attributes existing fields to before-first-apply', () => {
    const untracked = {
      ...deployment({ replicas: 1, paused: false }),
      metadata: { name: 'web', namespace: 'default', uid: 'u' },
    };
    const e = conflict(() => apply(untracked, 'ctl', deployment({ replicas: 4 })));
    assert.equal(
      e.message,
      'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas',
    );
    const obj = apply(untracked, 'ctl', deployment({ replicas: 4 }), true);
    assert.deepEqual(fields(obj, 'before-first-apply'), { 'f:spec': { 'f:paused': {} } });
  });

  it('orders entries Apply first, then by time', () => {
    let obj = update(undefined, deployment({ replicas: 1 }), 'z-creator');
    obj = apply(obj, 'b-applier', deployment({ paused: true }));
    obj = update(obj, { ...structuredClone(obj), spec: { ...obj.spec, minReadySeconds: 3 } }, 'a-editor');
    assert.deepEqual(
      obj.metadata.managedFields.map((e: ManagedFieldsEntry) => `${e.operation}:${e.manager}`),
      ['Apply:b-applier', 'Update:z-creator', 'Update:a-editor'],
    );
  });

  it('keeps at most ten Update entries, folding the oldest into ancient-changes', () => {
    let obj = update(undefined, deployment({ replicas: 1 }), 'creator');
    for (let i = 0; i < 11; i++)
      obj = update(
        obj,
        {
          ...structuredClone(obj),
          metadata: { ...structuredClone(obj.metadata), labels: { ...obj.metadata.labels, [`l${i}`]: 'x' } },
        },
        `writer-${i}`,
      );
    const managers = obj.metadata.managedFields.map((e: ManagedFieldsEntry) => e.manager);
    assert.equal(managers.length, 10);
    assert.ok(managers.includes('ancient-changes'));
    // the creator's and the two oldest writers' fields, stamped with the newest merged entry's time
    assert.deepEqual(fields(obj, 'ancient-changes'), {
      'f:metadata': { 'f:labels': { '.': {}, 'f:l0': {}, 'f:l1': {} } },
      'f:spec': { 'f:replicas': {} },
    });
  });
});

describe('client-side apply to server-side apply (kubectl)', () => {
  const lastApplied = (config: Obj) => `${JSON.stringify(config)}\n`;
  function csaCreated(config: Obj): Obj {
    const withAnnotation = structuredClone(config);
    withAnnotation.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied(config) };
    return update(undefined, withAnnotation, 'kubectl-client-side-apply');
  }

  it('kubectl may take over fields whose last-applied value still matches, and the annotation follows the new config', () => {
    const v1 = deployment({ replicas: 3 });
    const live = csaCreated(v1);
    const v2 = deployment({ replicas: 5 });
    const obj = apply(live, 'kubectl', v2);
    assert.equal(obj.spec.replicas, 5);
    assert.equal(
      obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":5}}\n',
    );
    assert.deepEqual(fields(obj, 'kubectl'), { 'f:spec': { 'f:replicas': {} } });
  });

  it('other managers get the conflict', () => {
    const live = csaCreated(deployment({ replicas: 3 }));
    const e = conflict(() => apply(live, 'helm', deployment({ replicas: 5 })));
    assert.equal(
      e.message,
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
    );
  });

  it('a field changed since the last client-side apply is still a conflict for kubectl', () => {
    const live = csaCreated(deployment({ replicas: 3 }));
    const scaled = update(live, { ...structuredClone(live), spec: { replicas: 4 } }, 'kubectl-client-side-apply');
    const e = conflict(() => apply(scaled, 'kubectl', deployment({ replicas: 5 })));
    assert.equal(e.details?.causes?.[0]?.field, '.spec.replicas');
  });
});

describe('server-side apply on custom resources', () => {
  const schema = schemaFromOpenAPI({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          endpoints: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'name'],
            items: {
              type: 'object',
              properties: {
                port: { type: 'integer' },
                name: { type: 'string', default: 'http' },
                path: { type: 'string' },
              },
            },
          },
          selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
          config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  });
  const cr = (spec: Obj) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });
  const applyCr = (live: Obj | undefined, manager: string, spec: Obj) =>
    applyServerSide({ live, applied: cr(spec), manager, schema, now: tick(), apiVersion: 'example.com/v1' })
      .object as Obj;

  it('uses list-map keys (sorted, with schema defaults), atomic maps and deduced unknown fields', () => {
    const obj = applyCr(undefined, 'ctl', {
      endpoints: [{ port: 80, path: '/' }],
      selector: { a: 'b' },
      config: { nested: { x: 1 } },
    });
    assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, {
      'f:spec': {
        'f:config': { 'f:nested': { '.': {}, 'f:x': {} } },
        'f:endpoints': { 'k:{"name":"http","port":80}': { '.': {}, 'f:path': {}, 'f:port': {} } },
        'f:selector': {},
      },
    });
    const e = conflict(() => applyCr(obj, 'other', { endpoints: [{ port: 80, name: 'http', path: '/v2' }] }));
    assert.equal(e.details?.causes?.[0]?.field, '.spec.endpoints[name="http",port=80].path');
  });

  it('a create through update records deduced objects as added', () => {
    const obj = update(undefined, cr({ config: { a: 1 } }), 'ctl', { schema, apiVersion: 'example.com/v1' });
    assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, {
      'f:spec': { '.': {}, 'f:config': { '.': {}, 'f:a': {} } },
    });
  });
});
