import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../src/errors.ts';
import { applyServerSide, type ManagedFieldsEntry, patchSchemaFor } from '../../src/patch/index.ts';

// A cluster-in-miniature: each apply starts from the object the previous one produced, with a uid
// (as if stored) and a clock that advances one second per write.
type Obj = Record<string, any>;
const deploymentSchema = patchSchemaFor('apps', 'v1', 'Deployment');
let clock = 0;
const tick = () => new Date(Date.UTC(2024, 0, 1, 0, 0, ++clock));

function apply(
  live: Obj | undefined,
  manager: string,
  config: Obj,
  opts: { force?: boolean; subresource?: string; schema?: unknown; apiVersion?: string } = {},
): Obj {
  const r = applyServerSide({
    live,
    applied: config,
    manager,
    force: opts.force ?? false,
    schema: opts.schema ?? deploymentSchema,
    now: tick(),
    apiVersion: opts.apiVersion ?? 'apps/v1',
    ...(opts.subresource ? { subresource: opts.subresource } : {}),
  });
  assert.deepEqual((r.object as Obj).metadata.managedFields ?? [], r.managedFields);
  const out = structuredClone(r.object) as Obj;
  out.metadata.uid ??= 'uid-1';
  return out;
}

function applyError(
  live: Obj | undefined,
  manager: string,
  config: Obj,
  opts: { force?: boolean; subresource?: string } = {},
): StatusError {
  try {
    apply(live, manager, config, opts);
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected the apply to fail');
}

/** fieldsV1 of each manager entry, keyed `manager` or `manager/subresource`. */
function owners(obj: Obj): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of (obj.metadata.managedFields ?? []) as ManagedFieldsEntry[])
    out[e.subresource ? `${e.manager}/${e.subresource}` : e.manager!] = e.fieldsV1;
  return out;
}

function deployment(spec: Obj, metadata: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', ...metadata },
    spec,
  };
}
const podTemplate = (containers: Obj[], spec: Obj = {}) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers, ...spec },
});
const nginx = (image = 'nginx:1.25', extra: Obj = {}) => ({ name: 'nginx', image, ...extra });
const replicasConfig = (n: number) => deployment({ replicas: n });

describe('server-side apply: create and re-apply', () => {
  const config = deployment(
    {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: podTemplate([nginx('nginx:1.25', { ports: [{ containerPort: 80 }] })]),
    },
    { labels: { app: 'web' } },
  );

  it('creates the object and records exactly the applied fields in kube’s fieldsV1 format', () => {
    clock = 0;
    const r = applyServerSide({
      live: undefined,
      applied: config,
      manager: 'kubectl',
      force: false,
      schema: deploymentSchema,
      now: new Date('2024-01-01T00:00:00.500Z'),
      apiVersion: 'apps/v1',
    });
    assert.equal(r.changed, true);
    assert.deepEqual(r.object.spec, config.spec);
    assert.deepEqual(r.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"nginx"}': {
                    '.': {},
                    'f:image': {},
                    'f:name': {},
                    'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                  },
                },
              },
            },
          },
        },
      },
    ]);
    // JSON text order matters to clients that print it: "." first, then fields in SMD order
    assert.equal(
      JSON.stringify(r.managedFields[0]!.fieldsV1!['f:spec']),
      '{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}',
    );
  });

  it('re-applying the same configuration changes nothing, not even the entry time', () => {
    const created = apply(undefined, 'kubectl', config);
    const r = applyServerSide({
      live: created,
      applied: config,
      manager: 'kubectl',
      schema: deploymentSchema,
      now: tick(),
      apiVersion: 'apps/v1',
    });
    assert.equal(r.changed, false);
    assert.deepEqual(r.object, created);
    assert.deepEqual(r.managedFields, created.metadata.managedFields);
  });

  it('never records apiVersion, kind, name, namespace or server-set metadata', () => {
    const obj = apply(undefined, 'm', {
      ...replicasConfig(1),
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: 'x',
        resourceVersion: '5',
        generation: 2,
        creationTimestamp: '2024-01-01T00:00:00Z',
      },
    });
    assert.deepEqual(owners(obj), { m: { 'f:spec': { 'f:replicas': {} } } });
  });

  it('an apply that sets nothing trackable leaves no entry for its manager', () => {
    const obj = apply(undefined, 'm', deployment({}));
    assert.equal(obj.metadata.managedFields, undefined);
  });
});

describe('server-side apply: ownership between managers', () => {
  it('two managers applying the same value share the field without conflict', () => {
    let obj = apply(undefined, 'a', replicasConfig(3));
    obj = apply(obj, 'b', replicasConfig(3));
    assert.deepEqual(owners(obj), { a: { 'f:spec': { 'f:replicas': {} } }, b: { 'f:spec': { 'f:replicas': {} } } });
    // the second apply changed nothing in the object, so its new entry carries no time
    assert.equal((obj.metadata.managedFields as ManagedFieldsEntry[]).find((e) => e.manager === 'b')!.time, undefined);
  });

  it('applying a different value to a field another applier owns is a 409 naming the field and manager', () => {
    const obj = apply(undefined, 'a', replicasConfig(3));
    const e = applyError(obj, 'b', replicasConfig(5));
    assert.equal(e.code, 409);
    assert.equal(e.reason, 'Conflict');
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    assert.deepEqual(e.details?.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' },
    ]);
  });

  it('lists several conflicts per manager, updaters with their apiVersion', () => {
    const obj = apply(
      undefined,
      'a',
      deployment({ replicas: 3, minReadySeconds: 1, template: podTemplate([nginx()]) }),
    );
    obj.metadata.managedFields.push({
      manager: 'kubectl-edit',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:paused': {} } },
    });
    obj.spec.paused = true;
    const e = applyError(
      obj,
      'b',
      deployment({ replicas: 4, minReadySeconds: 2, paused: false, template: podTemplate([nginx('nginx:2')]) }),
    );
    assert.equal(
      e.message,
      'Apply failed with 4 conflicts: conflicts with "a":\n- .spec.minReadySeconds\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image\nconflicts with "kubectl-edit" using apps/v1:\n- .spec.paused',
    );
    assert.deepEqual(
      e.details?.causes?.map((c) => [c.message, c.field]),
      [
        ['conflict with "a"', '.spec.minReadySeconds'],
        ['conflict with "a"', '.spec.replicas'],
        ['conflict with "a"', '.spec.template.spec.containers[name="nginx"].image'],
        ['conflict with "kubectl-edit" using apps/v1', '.spec.paused'],
      ],
    );
  });

  it('force takes the field over from the other manager', () => {
    let obj = apply(undefined, 'a', deployment({ replicas: 3, paused: false }));
    obj = apply(obj, 'b', replicasConfig(5), { force: true });
    assert.equal(obj.spec.replicas, 5);
    assert.deepEqual(owners(obj), { a: { 'f:spec': { 'f:paused': {} } }, b: { 'f:spec': { 'f:replicas': {} } } });
  });

  it('a field the applier stops applying is removed when nobody else owns it', () => {
    let obj = apply(
      undefined,
      'a',
      deployment({
        replicas: 3,
        template: podTemplate([nginx('nginx', { ports: [{ containerPort: 80, protocol: 'TCP' }] })], { hostname: 'h' }),
      }),
    );
    obj = apply(obj, 'a', deployment({ replicas: 3, template: podTemplate([nginx('nginx')]) }));
    assert.deepEqual(obj.spec.template.spec, { containers: [{ name: 'nginx', image: 'nginx' }] });
  });

  it('a dropped field another applier still owns stays in the object', () => {
    const full = deployment({ replicas: 3, template: podTemplate([nginx()], { hostname: 'test-hostname' }) });
    let obj = apply(undefined, 'shared_owner_1', full);
    obj = apply(obj, 'shared_owner_2', full);
    obj = apply(obj, 'shared_owner_1', deployment({ template: podTemplate([nginx()]) }));
    assert.equal(obj.spec.replicas, 3);
    assert.equal(obj.spec.template.spec.hostname, 'test-hostname');
    assert.equal(owners(obj).shared_owner_1 && JSON.stringify(owners(obj).shared_owner_1).includes('replicas'), false);
  });

  it('fields nobody applied (set by an update) survive an applier dropping its own', () => {
    let obj = apply(undefined, 'a', deployment({ replicas: 3, minReadySeconds: 5 }));
    obj.spec.revisionHistoryLimit = 4; // written by someone whose writes are not tracked
    obj = apply(obj, 'a', replicasConfig(3));
    assert.deepEqual(obj.spec, { replicas: 3, revisionHistoryLimit: 4 });
  });

  it('map-list items merge by key across managers and leave with their applier', () => {
    let obj = apply(undefined, 'a', deployment({ template: podTemplate([{ name: 'app', image: 'app:1' }]) }));
    obj = apply(obj, 'b', deployment({ template: podTemplate([{ name: 'sidecar', image: 'proxy:1' }]) }));
    assert.deepEqual(
      obj.spec.template.spec.containers.map((c: Obj) => c.name),
      ['app', 'sidecar'],
    );
    assert.deepEqual((owners(obj).b as Obj)['f:spec']['f:template']['f:spec'], {
      'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
    });
    obj = apply(
      obj,
      'b',
      deployment({ template: podTemplate([{ name: 'app', image: 'app:1', env: [{ name: 'X', value: '1' }] }]) }),
    );
    assert.deepEqual(obj.spec.template.spec.containers, [
      { name: 'app', image: 'app:1', env: [{ name: 'X', value: '1' }] },
    ]);
  });

  it('associative lists follow the applier’s order for shared items and keep live-only items in place', () => {
    const svc = patchSchemaFor('', 'v1', 'Service');
    const service = (ports: Obj[]) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports } });
    let obj = apply(undefined, 'a', service([{ port: 80 }, { port: 443 }, { port: 8080 }]), {
      schema: svc,
      apiVersion: 'v1',
    });
    obj = apply(
      obj,
      'b',
      service([
        { port: 8080, name: 'alt' },
        { port: 80, name: 'http' },
      ]),
      { schema: svc, apiVersion: 'v1' },
    );
    assert.deepEqual(obj.spec.ports, [{ port: 443 }, { port: 8080, name: 'alt' }, { port: 80, name: 'http' }]);
    assert.deepEqual((owners(obj).b as Obj)['f:spec']['f:ports']['k:{"port":80,"protocol":"TCP"}'], {
      '.': {},
      'f:name': {},
      'f:port': {},
    });
  });

  it('set lists (finalizers) are unions of every applier’s items', () => {
    let obj = apply(undefined, 'a', deployment({}, { finalizers: ['a.example.com/cleanup'] }));
    obj = apply(obj, 'b', deployment({}, { finalizers: ['b.example.com/cleanup'] }));
    assert.deepEqual(obj.metadata.finalizers, ['a.example.com/cleanup', 'b.example.com/cleanup']);
    assert.deepEqual(owners(obj).b, { 'f:metadata': { 'f:finalizers': { 'v:"b.example.com/cleanup"': {} } } });
    obj = apply(obj, 'a', deployment({}));
    assert.deepEqual(obj.metadata.finalizers, ['b.example.com/cleanup']);
  });

  it('atomic lists are owned and replaced as a whole', () => {
    const tolerations = (key: string) =>
      deployment({ template: podTemplate([nginx()], { tolerations: [{ key, operator: 'Exists' }] }) });
    const obj = apply(undefined, 'a', tolerations('gpu'));
    assert.deepEqual((owners(obj).a as Obj)['f:spec']['f:template']['f:spec']['f:tolerations'], {});
    const e = applyError(obj, 'b', tolerations('spot'));
    assert.deepEqual(
      e.details?.causes?.map((c) => c.field),
      ['.spec.template.spec.tolerations'],
    );
    const forced = apply(obj, 'b', tolerations('spot'), { force: true });
    assert.deepEqual(forced.spec.template.spec.tolerations, [{ key: 'spot', operator: 'Exists' }]);
  });

  it('granular maps (labels) merge per key; atomic maps (selector) conflict as a whole', () => {
    let obj = apply(
      undefined,
      'a',
      deployment({ selector: { matchLabels: { app: 'web' } } }, { labels: { team: 'a' } }),
    );
    obj = apply(obj, 'b', deployment({}, { labels: { tier: 'frontend' } }));
    assert.deepEqual(obj.metadata.labels, { team: 'a', tier: 'frontend' });
    const e = applyError(obj, 'b', deployment({ selector: { matchLabels: { app: 'api' } } }));
    assert.deepEqual(
      e.details?.causes?.map((c) => c.field),
      ['.spec.selector'],
    );
    obj = apply(obj, 'a', deployment({ selector: { matchLabels: { app: 'web' } } }));
    assert.deepEqual(obj.metadata.labels, { tier: 'frontend' });
  });
});

describe('server-side apply: status subresource', () => {
  const statusConfig = (ready: number) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 9 },
    status: { readyReplicas: ready },
  });

  it('apply to /status changes and owns only .status, recorded with subresource status', () => {
    let obj = apply(undefined, 'user', replicasConfig(2));
    obj = apply(obj, 'controller', statusConfig(1), { subresource: 'status' });
    assert.equal(obj.spec.replicas, 2);
    assert.deepEqual(obj.status, { readyReplicas: 1 });
    const entry = (obj.metadata.managedFields as ManagedFieldsEntry[]).find((e) => e.manager === 'controller')!;
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:readyReplicas': {} } });
  });

  it('the main resource ignores .status in an applied configuration', () => {
    let obj = apply(undefined, 'user', replicasConfig(2));
    obj = apply(obj, 'controller', statusConfig(1), { subresource: 'status' });
    obj = apply(obj, 'user', statusConfig(5));
    assert.deepEqual(obj.status, { readyReplicas: 1 });
    assert.equal(obj.spec.replicas, 9);
    assert.deepEqual(owners(obj).user, { 'f:spec': { 'f:replicas': {} } });
  });

  it('one manager applying to both endpoints keeps two entries that never conflict', () => {
    let obj = apply(undefined, 'ctl', replicasConfig(2));
    obj = apply(obj, 'ctl', statusConfig(1), { subresource: 'status' });
    obj = apply(obj, 'ctl', replicasConfig(3));
    assert.deepEqual(Object.keys(owners(obj)).sort(), ['ctl', 'ctl/status']);
    const e = applyError(obj, 'other', statusConfig(4), { subresource: 'status' });
    assert.equal(
      e.message,
      'Apply failed with 1 conflict: conflict with "ctl" with subresource "status": .status.readyReplicas',
    );
  });
});

describe('server-side apply: request checks', () => {
  it('rejects metadata.managedFields in the configuration', () => {
    const e = applyError(undefined, 'm', deployment({}, { managedFields: [] }));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'metadata.managedFields must be nil');
  });

  it("reports a configuration that does not fit the schema with kube's message, as a 400 (kube: a bare 500)", () => {
    const e = applyError(undefined, 'm', deployment({ template: podTemplate([nginx(), nginx()]) }));
    assert.equal(e.code, 400);
    assert.equal(
      e.message,
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: duplicate entries for key [name="nginx"]',
    );
  });

  it('checks apiVersion and kind when the caller names the kind', () => {
    assert.throws(
      () =>
        applyServerSide({
          live: undefined,
          applied: { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'x' } },
          manager: 'm',
          schema: deploymentSchema,
          now: tick(),
          apiVersion: 'apps/v1',
          kind: 'Deployment',
        }),
      (e: StatusError) => e.code === 400 && e.message === 'invalid object type: apps/v1beta1, Kind=Deployment',
    );
  });
});
