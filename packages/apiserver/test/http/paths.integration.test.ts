// Request paths, query parameters and bodies the way kube-apiserver 1.32 reads them: empty and encoded
// segments, dot names, the /watch/ path form, routes that lack a method or media type, list options
// decoded and validated, request deadlines (slow bodies), size limits and a `__proto__` field.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '../../src/index.ts';
import { openWatch, raw } from '../../src/testing/index.ts';
import { createWidgetCrd, send, WIDGETS } from './fixture.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('request paths, query parameters and bodies', () => {
  let s: ApiServer;
  before(async () => {
    s = await startApiServer({ port: 0 });
    await raw(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    await raw(s, 'POST', CMS, cm('here'));
    await raw(s, 'POST', '/api/v1/namespaces/other/configmaps', cm('there'));
    await createWidgetCrd(s);
  });
  after(async () => {
    await s?.close();
  });

  it('reads an empty namespace segment as every namespace for lists, and as a missing one for objects', async () => {
    const all = await raw(s, 'GET', '/api/v1/namespaces//configmaps');
    assert.equal(all.status, 200);
    const names = all.json().items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
    assert.ok(names.includes('default/here') && names.includes('other/there'), names.join(' '));
    const one = await raw(s, 'GET', '/api/v1/namespaces//configmaps/here');
    assert.deepEqual([one.status, one.json().message], [400, 'Namespace parameter required.']);
    const created = await raw(s, 'POST', '/api/v1/namespaces//configmaps', cm('nowhere'));
    assert.deepEqual(
      [created.status, created.json().message],
      [422, 'ConfigMap "nowhere" is invalid: metadata.namespace: Required value'],
    );
    assert.equal((await raw(s, 'GET', '/api/v1/namespaces//configmaps?labelSelector=a%20in%20(')).status, 400);
  });

  it('matches no route for other empty segments, and trims trailing slashes', async () => {
    for (const path of [
      '//api/v1/namespaces/default/configmaps',
      '/api//v1/namespaces',
      '/api/v1/namespaces/default//configmaps',
      '/apis//apps/v1/deployments',
      '//version',
    ]) {
      const r = await send(s, 'GET', path);
      assert.deepEqual([r.status, r.json().message], [404, 'the server could not find the requested resource'], path);
    }
    assert.equal((await raw(s, 'GET', `${CMS}/here/`)).json().metadata.name, 'here');
    assert.equal((await raw(s, 'GET', `${CMS}/%2F`)).json().kind, 'ConfigMapList', 'a decoded slash is a separator');
    const pod = await raw(s, 'GET', '/api/v1/namespaces/default/pods//status');
    assert.deepEqual([pod.status, pod.json().message], [400, 'name must be provided']);
  });

  it('refuses dot names from the path, encoded or not, and never resolves them', async () => {
    for (const [path, name] of [
      [`${CMS}/..`, '..'],
      [`${CMS}/%2E%2E`, '..'],
      [`${CMS}/%2e`, '.'],
      [`${CMS}/a%2525b`, 'a%25b'],
    ]) {
      const r = await send(s, 'GET', path!);
      const why = name!.includes('%') ? "may not contain '%'" : `may not be '${name}'`;
      assert.deepEqual(
        [r.status, r.json().message],
        [400, `Name parameter invalid: ${JSON.stringify(name)}: ${why}`],
        path,
      );
    }
    assert.equal((await send(s, 'DELETE', '/api/v1/namespaces/other/configmaps/..')).status, 400);
    assert.equal((await raw(s, 'GET', '/api/v1/namespaces/other')).status, 200, 'the namespace is still there');
    assert.equal((await send(s, 'GET', '/openapi/v3/../../etc/passwd')).status, 404);
  });

  it('serves the deprecated /watch/ paths and ignores ?watch on an object path', async () => {
    const w = openWatch(s, '/api/v1/watch/namespaces/default/configmaps/here?timeoutSeconds=5');
    await raw(s, 'POST', CMS, cm('noise'));
    await raw(s, 'PATCH', `${CMS}/here`, { data: { k: 'v' } }, { contentType: 'application/merge-patch+json' });
    const modified = await w.next((e) => e.type === 'MODIFIED');
    assert.equal(modified.object.metadata.name, 'here');
    assert.ok(
      w.events.every((e) => e.object.metadata.name === 'here'),
      'only the named object',
    );
    w.stop();
    const get = await raw(s, 'GET', `${CMS}/here?watch=true`);
    assert.equal(get.json().kind, 'ConfigMap');
  });

  it('answers routes without the method with 405, and bodies of a type the route does not take with 415', async () => {
    assert.deepEqual(
      [(await raw(s, 'HEAD', CMS)).status, (await raw(s, 'HEAD', WIDGETS)).status],
      [405, 200],
      'no HEAD routes for built-ins; the CRD handler serves it',
    );
    const post = await raw(s, 'POST', `${CMS}/here`, cm('here'));
    assert.deepEqual(
      [post.status, post.json().message],
      [405, 'the server does not allow this method on the requested resource'],
    );
    assert.equal((await raw(s, 'POST', '/api/v1/configmaps', cm('x'))).status, 405, 'no create across namespaces');
    const text = await send(s, 'POST', CMS, { contentType: 'text/plain', body: JSON.stringify(cm('t')) });
    assert.deepEqual([text.status, text.json().message], [415, '415: Unsupported Media Type'], 'a sized body');
    const chunked = await raw(s, 'POST', CMS, cm('t'), {
      contentType: 'text/plain',
      headers: { 'Transfer-Encoding': 'chunked' },
    });
    assert.deepEqual(
      [chunked.status, chunked.json().message],
      [415, '415: Unsupported Media Type\n\nAvailable representations: '],
      'a chunked body: go-restful finds no route left to answer',
    );
    assert.equal((await send(s, 'POST', CMS, { body: JSON.stringify(cm('t')) })).status, 415, 'no Content-Type');
    const crText = await send(s, 'POST', WIDGETS, { contentType: 'text/plain', body: '{}' });
    assert.deepEqual(
      [crText.status, crText.json().message],
      [
        415,
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ],
    );
    const noType = await send(s, 'POST', WIDGETS, {
      body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'untyped' } }),
    });
    assert.equal(noType.status, 201, 'the CRD handler reads a body without a Content-Type as JSON');
    const strategic = await raw(
      s,
      'PATCH',
      `${WIDGETS}/untyped`,
      { spec: {} },
      { contentType: 'application/strategic-merge-patch+json' },
    );
    assert.deepEqual(
      [strategic.status, strategic.json().message],
      [
        415,
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      ],
    );
    assert.equal((await raw(s, 'PUT', WIDGETS, {})).json().message, 'name must be provided');
  });

  it('decodes list options like kube-apiserver: the first value, strconv errors, negative limits, then validation', async () => {
    const abc = await raw(s, 'GET', `${CMS}?limit=abc`);
    assert.deepEqual([abc.status, abc.json().message], [400, 'strconv.ParseInt: parsing "abc": invalid syntax']);
    assert.equal(
      (await raw(s, 'GET', `${CMS}?limit=99999999999999999999`)).json().message,
      'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    );
    assert.equal((await raw(s, 'GET', `${CMS}?limit=1&limit=abc`)).json().items.length, 1, 'the first value counts');
    assert.ok((await raw(s, 'GET', `${CMS}?limit=-1`)).json().items.length >= 2, 'a negative limit is no limit');
    const rvm = await raw(s, 'GET', `${CMS}?resourceVersionMatch=NotOlderThan`);
    assert.deepEqual(
      [rvm.status, rvm.json().message],
      [
        422,
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      ],
    );
    assert.equal(
      (await raw(s, 'GET', `${CMS}?resourceVersion=0&resourceVersionMatch=Bogus`)).json().message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
    );
    assert.equal((await raw(s, 'GET', `${CMS}?sendInitialEvents=true`)).status, 422);
    const watch = await raw(s, 'GET', `${CMS}?watch=1&sendInitialEvents=true`);
    assert.deepEqual(
      [watch.status, watch.json().message],
      [
        422,
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ],
    );
    // a watch that asks for no initial events starts empty; a negative timeout ends it at once
    const quiet = await send(
      s,
      'GET',
      `${CMS}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=-5`,
    );
    assert.deepEqual([quiet.status, quiet.text], [200, '']);
  });

  it('validates write options into one 422 per options kind, after the body is read', async () => {
    const many = await raw(s, 'POST', `${CMS}?fieldManager=tab%09here&dryRun=None&fieldValidation=strict`, cm('opts'));
    assert.equal(many.status, 422);
    assert.equal(
      many.json().message,
      'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Invalid value: "tab\\there": invalid character U+0009 (at position 3), dryRun: Unsupported value: []string{"None"}: supported values: "All", fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"]',
    );
    assert.equal(
      (await raw(s, 'POST', `${CMS}?fieldManager=${'m'.repeat(129)}`, cm('opts'))).json().message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    assert.equal(
      (await raw(s, 'POST', `${CMS}?fieldManager=%C3%BCber&dryRun=All`, cm('opts'))).status,
      201,
      'printable non-ASCII is fine',
    );
    const force = await raw(
      s,
      'PATCH',
      `${CMS}/here?force=true`,
      { data: {} },
      { contentType: 'application/merge-patch+json' },
    );
    assert.deepEqual(
      [force.status, force.json().message],
      [422, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'],
    );
    const apply = await raw(
      s,
      'PATCH',
      `${CMS}/here`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'here' } },
      { contentType: 'application/apply-patch+yaml' },
    );
    assert.equal(
      apply.json().message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    assert.equal((await raw(s, 'PUT', `${CMS}/here?dryRun=`, cm('here'))).json().details.kind, 'UpdateOptions');
    assert.equal(
      (await raw(s, 'DELETE', `${CMS}/here?gracePeriodSeconds=abc`)).json().message,
      'strconv.ParseInt: parsing "abc": invalid syntax',
    );
  });

  it('enforces the request deadline: ?timeout shortens it, a malformed one is a 400, a body too slow gets a 504', async () => {
    const bad = await raw(s, 'GET', `${CMS}?timeout=abc`);
    assert.deepEqual(
      [bad.status, bad.json().message],
      [400, 'invalid timeout specified in the request URL - time: invalid duration "abc"'],
    );
    assert.equal((await raw(s, 'GET', `${CMS}?timeout=30s`)).status, 200);
    const slow = await send(s, 'POST', `${CMS}?timeout=300ms`, {
      contentType: 'application/json',
      body: JSON.stringify(cm('slow')),
      slow: { pieces: 4, delayMs: 250 },
    });
    assert.deepEqual(
      [slow.status, slow.json().reason, slow.json().message],
      [504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded'],
    );
    assert.equal((await raw(s, 'GET', '/readyz')).status, 200);
  });

  it('limits bodies to 3 MiB, declared or chunked', async () => {
    const big = await send(s, 'POST', CMS, {
      contentType: 'application/json',
      body: JSON.stringify({ ...cm('big'), data: { x: 'x'.repeat(3 * 1024 * 1024) } }),
    });
    assert.deepEqual([big.status, big.json().message], [413, 'Request entity too large: limit is 3145728']);
  });

  it('refuses a __proto__ field anywhere, so nothing can reach or shadow a prototype', async () => {
    const bodies = [
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","__proto__":{"name":"evil","namespace":"kube-system"}}}',
      '{"__proto__":{"kind":"Secret"},"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"}}',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"\\u005f_proto__":{"polluted":"yes"}}}',
    ];
    for (const body of bodies) {
      const r = await send(s, 'POST', CMS, { contentType: 'application/json', body });
      assert.equal(r.status, 400, body);
      assert.match(r.json().message, /field named "__proto__" at /);
    }
    const yaml = await send(s, 'POST', CMS, {
      contentType: 'application/yaml',
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n  __proto__: {name: evil}\n',
    });
    assert.equal(yaml.status, 400);
    const patch = await raw(s, 'PATCH', `${WIDGETS}/untyped`, '{"spec":{"a":{"__proto__":{"polluted":"yes"}}}}', {
      contentType: 'application/merge-patch+json',
    });
    assert.equal(
      patch.json().message,
      'the request body has a field named "__proto__" at spec.a.__proto__: this API server refuses that name in any object; remove or rename the field',
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((await raw(s, 'GET', `${CMS}/p`)).status, 404);
  });
});
