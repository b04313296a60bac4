// Requests as bytes to answers, without sockets: bad bodies get an HTTP error with a Status kube prints;
// reviews with a uid always get a uid-matched answer, whether the resource is wrong, the handler throws
// or hangs; operations the webhook was not registered for pass; conversion reviews convert or fail whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AdmissionWebhookSpec,
  dispatchAdmission,
  dispatchConversion,
  type Route,
} from '../../src/webhooks/index.ts';

const spec: AdmissionWebhookSpec = {
  name: 'vwidget.test.modelplane.io',
  rules: [
    {
      operations: ['CREATE', 'UPDATE'],
      apiGroups: ['test.modelplane.io'],
      apiVersions: ['v1'],
      resources: ['widgets'],
    },
  ],
};

function body(req: Record<string, unknown> = {}, apiVersion = 'admission.k8s.io/v1'): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion,
      kind: 'AdmissionReview',
      request: {
        uid: 'uid-7',
        kind: { group: 'test.modelplane.io', version: 'v1', kind: 'Widget' },
        resource: { group: 'test.modelplane.io', version: 'v1', resource: 'widgets' },
        operation: 'CREATE',
        namespace: 'default',
        name: 'w',
        userInfo: {},
        object: {
          apiVersion: 'test.modelplane.io/v1',
          kind: 'Widget',
          metadata: { name: 'w', namespace: 'default' },
          spec: { size: 1 },
        },
        ...req,
      },
    }),
  );
}

const validating = (handler: (r: any) => any): Extract<Route, { type: 'validating' }> => ({
  type: 'validating',
  path: '/v',
  spec,
  handler,
});
const JSON_TYPE = 'application/json';
const response = (d: { body: unknown }) => (d.body as any).response;

describe('dispatchAdmission: bodies that are not a review', () => {
  const cases: Array<[string, Buffer, string, number, RegExp]> = [
    ['wrong content type', body(), 'text/plain', 415, /contentType=text\/plain, expected application\/json/],
    ['empty body', Buffer.alloc(0), JSON_TYPE, 400, /request body is empty/],
    ['malformed JSON', Buffer.from('{"apiVersion": '), JSON_TYPE, 400, /request body is not JSON/],
    [
      'a review without a uid',
      Buffer.from('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}'),
      JSON_TYPE,
      400,
      /request.uid must be a non-empty string/,
    ],
    [
      'another kind',
      Buffer.from('{"apiVersion":"v1","kind":"Pod"}'),
      JSON_TYPE,
      400,
      /expected kind AdmissionReview, got "Pod"/,
    ],
  ];
  for (const [name, raw, type, status, message] of cases) {
    it(`${name} → HTTP ${status} with a Status`, async () => {
      const d = await dispatchAdmission(
        validating(() => undefined),
        raw,
        type,
        1000,
      );
      assert.equal(d.status, status);
      assert.equal((d.body as any).kind, 'Status');
      assert.match((d.body as any).message, message);
      assert.equal(d.result, 'error');
    });
  }

  it('a review with a uid but a broken request → a uid-matched 400 refusal', async () => {
    const d = await dispatchAdmission(
      validating(() => undefined),
      body({ operation: 'FROB' }),
      JSON_TYPE,
      1000,
    );
    assert.equal(d.status, 200);
    assert.deepEqual(response(d), {
      uid: 'uid-7',
      allowed: false,
      status: {
        code: 400,
        reason: 'BadRequest',
        message: 'AdmissionReview request.operation "FROB" is not one of CREATE, UPDATE, DELETE, CONNECT',
      },
    });
  });
});

describe('dispatchAdmission: handlers', () => {
  it('passes the decoded request and echoes the uid in the version asked', async () => {
    let seen: any;
    const handler = (r: any) => {
      seen = r;
      return { warnings: ['hm'] };
    };
    const d = await dispatchAdmission(
      validating(handler),
      body({}, 'admission.k8s.io/v1beta1'),
      'application/json; charset=utf-8',
      1000,
    );
    assert.equal(seen.object.spec.size, 1);
    assert.deepEqual(d.body, {
      apiVersion: 'admission.k8s.io/v1beta1',
      kind: 'AdmissionReview',
      response: { uid: 'uid-7', allowed: true, warnings: ['hm'] },
    });
    assert.equal(d.result, 'allowed');
  });

  it('a handler that throws → allowed:false, code 500, naming the webhook', async () => {
    const d = await dispatchAdmission(
      validating(() => {
        throw new Error('boom');
      }),
      body(),
      JSON_TYPE,
      1000,
    );
    assert.equal(d.status, 200);
    assert.deepEqual(response(d), {
      uid: 'uid-7',
      allowed: false,
      status: {
        code: 500,
        reason: 'InternalError',
        message: 'internal error in webhook vwidget.test.modelplane.io: boom',
      },
    });
    assert.equal(d.result, 'error');
  });

  it('a handler that rejects its promise or returns garbage → the same 500', async () => {
    const rejected = await dispatchAdmission(
      validating(async () => Promise.reject(new TypeError('bad'))),
      body(),
      JSON_TYPE,
      1000,
    );
    assert.equal(response(rejected).status.code, 500);
    const garbage = await dispatchAdmission(
      validating(() => ({ errors: 'nope' })),
      body(),
      JSON_TYPE,
      1000,
    );
    assert.match(
      response(garbage).status.message,
      /^internal error in webhook vwidget.test.modelplane.io: validator returned errors that are not a list/,
    );
  });

  it('a handler that hangs → a 500 when the deadline passes', async () => {
    const started = Date.now();
    const d = await dispatchAdmission(
      validating(() => new Promise(() => {})),
      body(),
      JSON_TYPE,
      100,
    );
    assert.ok(Date.now() - started < 1000);
    assert.equal(
      response(d).status.message,
      'internal error in webhook vwidget.test.modelplane.io: validating webhook vwidget.test.modelplane.io did not answer within 100 ms',
    );
  });

  it('a resource the rules do not cover → 400 naming both', async () => {
    const d = await dispatchAdmission(
      validating(() => undefined),
      body({ resource: { group: '', version: 'v1', resource: 'pods' } }),
      JSON_TYPE,
      1000,
    );
    assert.deepEqual(response(d).status, {
      code: 400,
      reason: 'BadRequest',
      message:
        'webhook vwidget.test.modelplane.io (/v) handles widgets in test.modelplane.io/v1, not v1, Resource=pods',
    });
  });

  it('an operation the rules do not name is allowed without calling the handler', async () => {
    let called = false;
    const handler = () => {
      called = true;
      return { errors: [{ field: 'x', message: 'no' }] };
    };
    const d = await dispatchAdmission(
      validating(handler),
      body({ operation: 'DELETE', object: null }),
      JSON_TYPE,
      1000,
    );
    assert.equal(called, false);
    assert.deepEqual(response(d), { uid: 'uid-7', allowed: true });
  });

  it('a mutator gets a private copy and its changes come back as a patch', async () => {
    const route: Route = {
      type: 'mutating',
      path: '/m',
      spec,
      handler: (r) => {
        r.object.spec.size = 2;
      },
    };
    const d = await dispatchAdmission(route, body(), JSON_TYPE, 1000);
    const res = response(d);
    assert.equal(res.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(res.patch, 'base64').toString()), [
      { op: 'replace', path: '/spec/size', value: 2 },
    ]);
    assert.equal(d.result, 'patched');
  });
});

describe('dispatchConversion', () => {
  const route = (fn: (o: any, v: string) => any): Extract<Route, { type: 'conversion' }> => ({
    type: 'conversion',
    path: '/c',
    spec: { crds: ['widgets.test.modelplane.io'] },
    handler: fn,
  });
  const review = (objects: unknown[]) =>
    Buffer.from(
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c-1', desiredAPIVersion: 'test.modelplane.io/v2', objects },
      }),
    );
  const w1 = (name: string) => ({
    apiVersion: 'test.modelplane.io/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'd', uid: `uid-${name}`, labels: { a: 'b' } },
    spec: { size: 1 },
  });

  it('converts every object, keeping metadata except labels and annotations', async () => {
    const d = await dispatchConversion(
      route((o, v) => ({
        apiVersion: v,
        kind: 'Widget',
        metadata: { labels: { a: 'c' } },
        spec: { dimensions: { size: o.spec.size } },
      })),
      review([w1('a'), w1('b')]),
      JSON_TYPE,
      1000,
    );
    const res = response(d);
    assert.deepEqual(res.result, { status: 'Success' });
    assert.deepEqual(res.convertedObjects[0], {
      apiVersion: 'test.modelplane.io/v2',
      kind: 'Widget',
      metadata: { name: 'a', namespace: 'd', uid: 'uid-a', labels: { a: 'c' } },
      spec: { dimensions: { size: 1 } },
    });
    assert.equal(res.uid, 'c-1');
  });

  it('fails the whole review naming the object when one conversion throws or returns the wrong version', async () => {
    const thrown = response(
      await dispatchConversion(
        route((o) => {
          if (o.metadata.name === 'b') throw new Error('size missing');
          return { ...o, apiVersion: 'test.modelplane.io/v2' };
        }),
        review([w1('a'), w1('b')]),
        JSON_TYPE,
        1000,
      ),
    );
    assert.deepEqual(thrown, {
      uid: 'c-1',
      result: {
        status: 'Failure',
        message: 'converting Widget d/b from test.modelplane.io/v1 to test.modelplane.io/v2: size missing',
      },
      convertedObjects: [],
    });
    const wrong = response(
      await dispatchConversion(
        route((o) => o),
        review([w1('a')]),
        JSON_TYPE,
        1000,
      ),
    );
    assert.match(wrong.result.message, /the converter returned apiVersion "test.modelplane.io\/v1"/);
  });

  it('rejects a body that is not a ConversionReview', async () => {
    const d = await dispatchConversion(
      route((o) => o),
      Buffer.from('{"kind":"AdmissionReview"}'),
      JSON_TYPE,
      1000,
    );
    assert.equal(d.status, 400);
    assert.match((d.body as any).message, /expected kind ConversionReview/);
  });
});
