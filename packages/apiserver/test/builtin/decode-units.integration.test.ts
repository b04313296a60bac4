// The built-in decoder without a server: Go's value checks (time, base64, quantity), error precedence,
// null and CRD-schema handling, the published OpenAPI schemas, and that the generated schema file
// matches what packages/apiserver/scripts/gen-builtin-schemas.ts makes from the installed @kubernetes/client-node.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { decodeBuiltin } from '../../src/builtin/decode.ts';
import { goBase64Error, goQuantityError, goTimeCanonical, goTimeError } from '../../src/builtin/go-values.ts';
import { builtinOpenApiSchemas } from '../../src/builtin/openapi-schemas.ts';
import { builtinTypes, K, type TypeNode } from '../../src/builtin/schema-types.ts';
import { StatusError } from '../../src/errors.ts';
import { MESSAGES } from '../../src/http/protobuf/messages.ts';
import { builtinResourceTypes } from '../../src/resource-types/builtin-types.ts';
import type { KubeObject } from '../../src/types.ts';

const decode = (obj: Record<string, unknown>, kind: string, group = '', version = 'v1') =>
  decodeBuiltin(obj as unknown as KubeObject, group, version, kind);

function decodeError(obj: Record<string, unknown>, kind: string, group = '', version = 'v1'): string {
  try {
    decode(obj, kind, group, version);
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 400);
    return e.message;
  }
  assert.fail('expected a decode error');
}

describe('Go value checks', () => {
  it('parses times like time.Parse with RFC3339 and RFC3339Micro', () => {
    assert.equal(goTimeError('2024-02-29T23:59:59Z', false), undefined);
    assert.equal(goTimeError('2024-02-29T23:59:59.123+02:00', false), undefined, 'a fraction is accepted by RFC3339');
    assert.equal(goTimeError('2024-01-01T00:00:00.123456Z', true), undefined);
    assert.equal(
      goTimeError('yesterday', false),
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    assert.equal(
      goTimeError('2024-01-01 00:00:00Z', false),
      'parsing time "2024-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00Z" as "T"',
    );
    assert.equal(goTimeError('2024-13-01T00:00:00Z', false), 'parsing time "2024-13-01T00:00:00Z": month out of range');
    assert.equal(goTimeError('2023-02-29T00:00:00Z', false), 'parsing time "2023-02-29T00:00:00Z": day out of range');
    assert.equal(
      goTimeError('2024-01-01T00:00:00', false),
      'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
    );
    assert.equal(
      goTimeError('2024-01-01T00:00:00Zjunk', false),
      'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"',
    );
    assert.equal(
      goTimeError('2024-01-01T00:00:00.000Z', true),
      'parsing time "2024-01-01T00:00:00.000Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".000Z" as ".000000"',
    );
  });

  it('reports base64 errors at Go offsets', () => {
    assert.equal(goBase64Error('aGVsbG8='), undefined);
    assert.equal(goBase64Error('aGVs\nbG8='), undefined, 'newlines are skipped');
    assert.equal(goBase64Error(''), undefined);
    assert.equal(goBase64Error('not base64!'), 'illegal base64 data at input byte 3');
    assert.equal(goBase64Error('aGVsbG8'), 'illegal base64 data at input byte 4', 'missing padding');
    assert.equal(goBase64Error('aGVsbG8=x'), 'illegal base64 data at input byte 8', 'trailing garbage');
  });

  it('parses quantities like resource.ParseQuantity', () => {
    for (const ok of ['1', '0.5', '500m', '1Gi', '1e3', '+2k', '.5', '1E-3'])
      assert.equal(goQuantityError(ok), undefined, ok);
    const format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    for (const bad of ['', 'abc', '1 Gi', '1.2.3', 'true']) assert.equal(goQuantityError(bad), format, bad);
    assert.equal(goQuantityError('1KiM'), "unable to parse quantity's suffix");
  });
});

describe('decodeBuiltin', () => {
  it('drops unknown and null fields, keeps everything Go knows, and returns the paths in document order', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        labels: { a: 'b' },
        managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { 'f:x': {} } } }],
        nope: 1,
      },
      spec: {
        nodeName: null,
        containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: 0.5, memory: '1Gi' } }, bogus: true }],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', extra: 1 }],
      },
    };
    assert.deepEqual(decode(pod, 'Pod'), ['metadata.nope', 'spec.containers[0].bogus', 'status.conditions[0].extra']);
    assert.deepEqual(pod.spec, {
      containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '500m', memory: '1Gi' } } }],
    });
    assert.deepEqual(pod.metadata.managedFields[0]!.fieldsV1, { 'f:spec': { 'f:x': {} } }, 'fieldsV1 is opaque');
  });

  it('stores quantities in canonical form, as Go re-encodes a decoded resource.Quantity', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            resources: {
              requests: { cpu: '1000m', memory: '1024Mi', 'nvidia.com/gpu': 1 },
              limits: { cpu: 0.1, memory: ' 1.5Gi ' },
            },
          },
        ],
        volumes: [{ name: 'v', emptyDir: { sizeLimit: '2048Mi' } }],
      },
    };
    decode(pod, 'Pod');
    assert.deepEqual(pod.spec.containers[0]!.resources, {
      requests: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' },
      limits: { cpu: '100m', memory: '1536Mi' },
    });
    assert.deepEqual(pod.spec.volumes[0]!.emptyDir, { sizeLimit: '2Gi' });
  });

  it('stores times as Go re-encodes them: UTC, whole seconds for Time, six fraction digits for MicroTime', () => {
    const cases: Array<[string, boolean, string | undefined]> = [
      ['2024-01-01T00:00:00Z', false, undefined],
      ['2024-01-01T00:00:00.789Z', false, '2024-01-01T00:00:00Z'],
      ['2024-01-01T01:30:00+01:30', false, '2024-01-01T00:00:00Z'],
      ['2024-01-01T23:00:00-02:00', false, '2024-01-02T01:00:00Z'],
      ['0099-03-01T00:00:00Z', false, undefined],
      ['2024-01-01T00:00:00.123456Z', true, undefined],
      ['2024-01-01T00:00:00.123456789+00:00', true, '2024-01-01T00:00:00.123456Z'],
      ['2024-02-29T00:30:00.120000+01:00', true, '2024-02-28T23:30:00.120000Z'],
    ];
    for (const [v, micro, want] of cases) assert.equal(goTimeCanonical(v, micro), want, v);
    const cond = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 't' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-06-01T12:00:00.5+02:00' }] },
    };
    decode(cond, 'Pod');
    assert.equal(cond.status.conditions[0]!.lastTransitionTime, '2024-06-01T10:00:00Z');
  });

  it('names the Go struct, field path and type of a wrong value; the first saved error wins', () => {
    assert.equal(
      decodeError({ metadata: { name: 'x' }, spec: [] }, 'Pod'),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal array into Go struct field Pod.spec of type v1.PodSpec',
    );
    assert.equal(
      decodeError(
        { metadata: { name: 'x' }, spec: { replicas: 1.5, selector: { matchLabels: { a: true } } } },
        'Deployment',
        'apps',
      ),
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    assert.equal(
      decodeError({ metadata: { name: 'x' }, spec: { ports: [{ port: 80, targetPort: {} }] } }, 'Service'),
      'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal object into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
    assert.equal(
      decodeError({ metadata: { name: 'x' }, data: 'x' }, 'Secret'),
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal string into Go struct field Secret.data of type map[string][]uint8',
    );
    assert.equal(
      decodeError(
        { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', resources: { requests: 'x' } }] } },
        'Pod',
      ),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.requests of type v1.ResourceList',
    );
  });

  it('an error from a custom decoder ends decoding and wins over an earlier type error', () => {
    const msg = decodeError(
      {
        metadata: { name: 'x', labels: { a: 1 } },
        spec: { containers: [{ name: 'c', resources: { limits: { cpu: 'lots' } } }] },
      },
      'Pod',
    );
    assert.match(msg, /cannot be handled as a Pod: quantities must match the regular expression/);
  });

  it('a type error hides unknown fields', () => {
    assert.match(
      decodeError({ metadata: { name: 'x' }, bogus: 1, data: { a: 1 } }, 'ConfigMap'),
      /json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/,
    );
  });

  it('decodes CRD schemas: strict under properties, silent under items and additionalProperties', () => {
    const crd = {
      metadata: { name: 'a.b' },
      spec: {
        versions: [
          {
            name: 'v1',
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  list: { type: 'array', items: { type: 'string', itemz: 1 } },
                  m: { type: 'object', additionalProperties: { type: 'string', extra: 1 } },
                  d: { default: { any: 'thing' }, x: 1 },
                },
              },
            },
            subresources: { status: {} },
          },
        ],
      },
    };
    assert.deepEqual(decode(crd, 'CustomResourceDefinition', 'apiextensions.k8s.io'), [
      'spec.versions[0].schema.openAPIV3Schema.properties.d.x',
    ]);
    const props = crd.spec.versions[0]!.schema.openAPIV3Schema.properties;
    assert.deepEqual(props.list.items, { type: 'string' }, 'dropped without a report');
    assert.deepEqual(props.m.additionalProperties, { type: 'string' });
    assert.deepEqual(props.d, { default: { any: 'thing' } }, 'default is opaque');
    assert.match(
      decodeError(
        {
          metadata: { name: 'a.b' },
          spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { additionalProperties: 'no' } } }] },
        },
        'CustomResourceDefinition',
        'apiextensions.k8s.io',
      ),
      /: boolean or JSON schema expected$/,
    );
  });

  it('stops listing unknown fields at 100, as kube does', () => {
    const data: Record<string, unknown> = {};
    for (let i = 0; i < 150; i++) data[`f${i}`] = 1;
    assert.equal(decode({ metadata: { name: 'x' }, ...data }, 'ConfigMap').length, 100);
  });
});

describe('built-in schemas', () => {
  it('cover every kind the registry serves', () => {
    const types = builtinTypes();
    for (const rt of builtinResourceTypes())
      assert.ok(types.kind(rt.group, rt.versions[0]!.name, rt.kind), `${rt.group}/${rt.kind}`);
  });

  it('publish OpenAPI definitions with refs that all resolve', () => {
    const { schemas, roots } = builtinOpenApiSchemas('apps', 'v1', ['Deployment', 'ReplicaSet']);
    assert.equal(roots.get('Deployment'), 'io.k8s.api.apps.v1.Deployment');
    assert.deepEqual(schemas['io.k8s.api.apps.v1.Deployment']!['x-kubernetes-group-version-kind'], [
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    assert.ok(schemas['io.k8s.api.core.v1.PodSpec'], 'core types reached from apps are included');
    assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    const refs = JSON.stringify(schemas).matchAll(/"#\/components\/schemas\/([^"]+)"/g);
    for (const [, name] of refs) assert.ok(schemas[name!], `dangling $ref ${name}`);
  });

  it('agree with the Go types of kubectl 1.32 (its protobuf messages): no field missing, same special types', () => {
    // client-node is generated from a newer Kubernetes: extra fields are fine, missing or retyped ones are not
    const pkgs: Record<string, string> = { 'io.k8s.api.core': 'core', 'io.k8s.apimachinery.pkg.apis.meta': 'meta' };
    const special = (t: string) =>
      ['resource.Quantity', 'intstr.IntOrString', 'meta/v1.MicroTime', 'meta/v1.Time', 'int32', 'int64', 'bytes'].find(
        (s) => t.includes(s),
      );
    const goSpecial: Record<string, string> = {
      'resource.Quantity': 'resource.Quantity',
      'v1.ResourceList': 'resource.Quantity',
      'intstr.IntOrString': 'intstr.IntOrString',
      'v1.MicroTime': 'meta/v1.MicroTime',
      'v1.Time': 'meta/v1.Time',
      int32: 'int32',
      int64: 'int64',
      '[]uint8': 'bytes',
    };
    const types = builtinTypes();
    let compared = 0;
    const seen = new Set<string>();
    const visit = (n: TypeNode) => {
      if (n.kind !== K.struct || seen.has(n.def!)) return;
      seen.add(n.def!);
      const parts = n.def!.split('.');
      const name = parts.pop()!;
      const version = parts.pop()!;
      const prefix = parts.join('.');
      const proto = MESSAGES[`${pkgs[prefix] ?? prefix.replace('io.k8s.api.', '')}/${version}.${name}`];
      for (const f of n.fields!.values()) {
        let inner = f.node;
        while (inner.elem) inner = inner.elem;
        visit(inner);
      }
      if (!proto) return; // (apiextensions is not compiled into kubectl)
      compared++;
      for (const entry of proto.split(' ')) {
        const [field, spec] = entry.split('=') as [string, string];
        const protoType = spec.slice(spec.indexOf(':') + 1);
        if (field.startsWith('#') || protoType.endsWith('^')) continue;
        const mine = n.fields!.get(field);
        assert.ok(mine, `${n.def}.${field} (kubectl 1.32 has it) is missing`);
        let goType = mine.node.go;
        for (const [k, v] of Object.entries(goSpecial)) if (goType.endsWith(k)) goType = v;
        assert.equal(
          special(goType) ?? '',
          special(protoType.replace(/[?!*]+$/, '')) ?? '',
          `${n.def}.${field}: ${mine.node.go} vs ${protoType}`,
        );
      }
    };
    for (const rt of builtinResourceTypes()) visit(types.kind(rt.group, rt.versions[0]!.name, rt.kind)!);
    assert.ok(compared > 150, `compared ${compared} structs`);
  });

  it('the checked-in file is what the generator makes from the installed client-node', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'packages/apiserver/scripts/gen-builtin-schemas.ts', '--check'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
  });
});
