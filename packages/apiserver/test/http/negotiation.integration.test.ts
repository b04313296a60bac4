// Response content negotiation as kube-apiserver 1.32 does it: JSON (indented for curl), YAML and Kubernetes
// protobuf for objects, lists, conversions and Status errors; q-values and wildcards; the two kinds of 406
// (go-restful's route check, then the negotiator); watch streams in JSON or length-prefixed protobuf and a
// 406 for YAML; custom resources without protobuf; and kubectl's typed clients reading protobuf answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { raw, startTestCluster, type TestCluster } from '../../src/testing/index.ts';
import { decodeEnvelope, decodeProtobufWatch } from '../fuzz/decode.ts';
import { createWidgetCrd, send, WIDGETS } from './fixture.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const ALL_TYPES = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';

describe('response content negotiation', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await raw(c.server, 'POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'neg', labels: { app: 'x' } },
      data: { yes: 'true', n: '1', multi: 'a\nb\n' },
    });
    await createWidgetCrd(c.server);
    await raw(c.server, 'POST', WIDGETS, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 3 },
    });
  });
  after(async () => {
    await c?.stop();
  });

  it('answers compact JSON by default and indented JSON to curl or ?pretty=true', async () => {
    const plain = await send(c.server, 'GET', `${CMS}/neg`, { accept: 'application/json' });
    assert.equal(plain.headers['content-type'], 'application/json');
    assert.ok(!plain.text.includes('\n'), 'compact');
    const curl = await send(c.server, 'GET', `${CMS}/neg`, { userAgent: 'curl/8.5.0' });
    assert.ok(curl.text.startsWith('{\n  "'), 'indented for curl');
    assert.deepEqual(curl.json(), plain.json());
    assert.ok((await send(c.server, 'GET', `${CMS}/neg?pretty=true`)).text.startsWith('{\n  "'));
    assert.ok(
      !(await send(c.server, 'GET', `${CMS}/neg?pretty=false`, { userAgent: 'curl/8.5.0' })).text.includes('\n'),
    );
  });

  it('answers YAML with sorted keys, quoted look-alikes and literal blocks, the same object as JSON', async () => {
    const json = (await send(c.server, 'GET', `${CMS}/neg`)).json();
    const yaml = await send(c.server, 'GET', `${CMS}/neg`, { accept: 'application/yaml' });
    assert.equal(yaml.status, 200);
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.deepEqual(parseYaml(yaml.text), json);
    const lines = yaml.text.split('\n');
    assert.deepEqual(
      lines.filter((l) => /^\S/.test(l)).map((l) => l.split(':')[0]),
      ['apiVersion', 'data', 'kind', 'metadata'],
    );
    assert.ok(lines.includes('  multi: |'), 'multi-line text as a literal block');
    assert.ok(lines.includes('  "n": "1"'), 'YAML 1.1 booleans and numbers are quoted, keys too');
    assert.ok(lines.includes('  "yes": "true"'));
    assert.ok(
      lines.some((l) => /^ {2}creationTimestamp: "\d{4}-/.test(l)),
      'timestamps are quoted',
    );
    const list = await send(c.server, 'GET', CMS, { accept: 'application/yaml' });
    assert.equal(parseYaml(list.text).kind, 'ConfigMapList');
    const created = await send(c.server, 'POST', CMS, {
      accept: 'application/yaml',
      contentType: 'application/yaml',
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n',
    });
    assert.equal(created.status, 201);
    assert.equal(parseYaml(created.text).metadata.name, 'from-yaml');
  });

  it('serves events.k8s.io Events in YAML', async () => {
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'x.io/y',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default', apiVersion: 'v1' },
    };
    assert.equal((await raw(c.server, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', ev)).status, 201);
    const got = await send(c.server, 'GET', '/apis/events.k8s.io/v1/namespaces/default/events/e1', {
      accept: 'application/yaml',
    });
    assert.equal(got.status, 200, got.text);
    assert.equal(parseYaml(got.text).eventTime, '2026-01-01T00:00:00.000000Z');
  });

  it('answers Kubernetes protobuf for built-in kinds, lists and errors', async () => {
    const json = (await send(c.server, 'GET', `${CMS}/neg`)).json();
    const pb = await send(c.server, 'GET', `${CMS}/neg`, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(pb.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    assert.equal(pb.body.subarray(0, 4).toString('latin1'), 'k8s\0');
    const obj = decodeEnvelope(pb.body) as any;
    assert.equal(obj.kind, 'ConfigMap');
    assert.deepEqual(obj.data, json.data);
    for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels'])
      assert.deepEqual(obj.metadata[k], json.metadata[k], k);
    const list = decodeEnvelope(
      (await send(c.server, 'GET', CMS, { accept: 'application/vnd.kubernetes.protobuf' })).body,
    ) as any;
    assert.equal(list.kind, 'ConfigMapList');
    assert.ok(list.items.some((i: any) => i.metadata.name === 'neg'));
    const missing = await send(c.server, 'GET', `${CMS}/nope`, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(missing.status, 404);
    assert.deepEqual(decodeEnvelope(missing.body), {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
    const yamlError = await send(c.server, 'GET', `${CMS}/nope`, { accept: 'application/yaml' });
    assert.equal(parseYaml(yamlError.text).reason, 'NotFound');
  });

  it('orders clauses by q-value and specificity and matches wildcards against JSON, YAML, protobuf', async () => {
    const typeFor = async (accept: string, path = `${CMS}/neg`) =>
      (await send(c.server, 'GET', path, { accept })).headers['content-type'];
    assert.equal(await typeFor('application/json;q=0.1, application/yaml;q=0.9'), 'application/yaml');
    assert.equal(
      await typeFor('application/yaml;q=0.5, application/vnd.kubernetes.protobuf'),
      'application/vnd.kubernetes.protobuf',
    );
    assert.equal(await typeFor('*/*'), 'application/json');
    assert.equal(await typeFor('text/html, */*;q=0.1'), 'application/json');
    assert.equal(
      await typeFor('application/*', `${WIDGETS}/w`),
      'application/json',
      'the CRD handler has no route check',
    );
    // kubectl's typed clients
    assert.equal(
      await typeFor('application/vnd.kubernetes.protobuf,application/json'),
      'application/vnd.kubernetes.protobuf',
    );
    assert.equal(
      await typeFor('application/vnd.kubernetes.protobuf,application/json', `${WIDGETS}/w`),
      'application/json',
    );
  });

  it('refuses what it cannot produce with 406: go-restful for routes, the negotiator for parameters and custom resources', async () => {
    const html = await send(c.server, 'GET', `${CMS}/neg`, { accept: 'text/html' });
    assert.equal(html.status, 406);
    assert.equal(html.json().message, `406: Not Acceptable\n\nAvailable representations: ${ALL_TYPES}`);
    assert.ok(html.text.startsWith('{\n  "kind": "Status"'), 'written as indented JSON when nothing acceptable');
    assert.equal((await send(c.server, 'GET', `${CMS}/neg`, { accept: 'application/*' })).status, 406);
    const bogus = await send(c.server, 'GET', `${CMS}/neg`, { accept: 'application/json;as=Bogus;g=meta.k8s.io;v=v1' });
    assert.equal(bogus.status, 406);
    assert.equal(bogus.json().message, `only the following media types are accepted: ${ALL_TYPES}`);
    const crProtobuf = await send(c.server, 'GET', `${WIDGETS}/w`, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(crProtobuf.status, 406);
    assert.equal(
      decodeEnvelope(crProtobuf.body).reason,
      'NotAcceptable',
      'the Status itself is protobuf, which errors may always be',
    );
    const tableProtobuf = await send(c.server, 'GET', CMS, {
      accept: 'application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1',
    });
    assert.equal(tableProtobuf.status, 406, 'Tables are JSON or YAML only');
    const partialOfOne = await send(c.server, 'GET', `${CMS}/neg`, {
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    });
    assert.equal(
      partialOfOne.json().message,
      'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
    );
  });

  it('converts to Table and PartialObjectMetadata in any allowed format and version', async () => {
    const table = parseYaml(
      (await send(c.server, 'GET', CMS, { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1' })).text,
    );
    assert.equal(table.kind, 'Table');
    assert.ok(table.rows.length >= 1);
    const partial = (
      await send(c.server, 'GET', `${CMS}/neg`, {
        accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1',
      })
    ).json();
    assert.equal(partial.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(partial.kind, 'PartialObjectMetadata');
    const pbPartial = decodeEnvelope(
      (
        await send(c.server, 'GET', CMS, {
          accept: 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
        })
      ).body,
    ) as any;
    assert.equal(pbPartial.kind, 'PartialObjectMetadataList');
    assert.ok(pbPartial.items.every((i: any) => i.metadata.name && !i.data));
  });

  it('streams watches as JSON lines or protobuf frames, and has no YAML stream', async () => {
    const json = await send(c.server, 'GET', `${CMS}?watch=true&timeoutSeconds=1`);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.ok(
      json.text
        .split('\n')
        .filter(Boolean)
        .every((l) => JSON.parse(l).type === 'ADDED'),
    );
    const pb = await send(c.server, 'GET', `${CMS}?watch=true&timeoutSeconds=1`, {
      accept: 'application/vnd.kubernetes.protobuf',
    });
    assert.equal(pb.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch');
    const { events, problems } = decodeProtobufWatch(pb.body, false);
    assert.deepEqual(problems, []);
    assert.ok(
      events.some(
        (e) => e.type === 'ADDED' && e.object.kind === 'ConfigMap' && (e.object.metadata as any).name === 'neg',
      ),
    );
    const yaml = await send(c.server, 'GET', `${CMS}?watch=true&timeoutSeconds=1`, { accept: 'application/yaml' });
    assert.equal(yaml.status, 406);
    assert.equal(
      parseYaml(yaml.text).message,
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
  });

  it('gives kubectl protobuf answers it decodes into the same objects', async () => {
    const cm = JSON.parse(await c.k(['create', 'configmap', 'via-kubectl', '--from-literal=a=b', '-o', 'json']));
    const stored = (await send(c.server, 'GET', `${CMS}/via-kubectl`)).json();
    assert.deepEqual(cm.data, { a: 'b' });
    assert.equal(cm.metadata.uid, stored.metadata.uid);
    assert.equal(cm.metadata.resourceVersion, stored.metadata.resourceVersion);
    const dep = JSON.parse(
      await c.k([
        'create',
        'deployment',
        'via-kubectl',
        '--image=registry.example.com/app:1',
        '--replicas=2',
        '-o',
        'json',
      ]),
    );
    const storedDep = (await send(c.server, 'GET', '/apis/apps/v1/namespaces/default/deployments/via-kubectl')).json();
    // (Go writes the zero creationTimestamp of a pod template as null, and so does the stored JSON)
    assert.equal(dep.spec.template.metadata.creationTimestamp, null);
    assert.deepEqual(dep.spec, storedDep.spec);
    // (kubectl drops managedFields from what it prints)
    for (const k of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'labels'])
      assert.deepEqual(dep.metadata[k], storedDep.metadata[k], k);
  });
});
