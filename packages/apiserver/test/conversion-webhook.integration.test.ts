// CRD conversion through a real HTTPS conversion webhook: v1 (flat spec) and v2 (nested spec) differ in
// layout, v2 is stored. Reads, lists (one review per list), watches (order kept while conversions wait) and
// writes convert; failures are kube's 500 `conversion webhook for … failed: …`; storedVersions grows when
// the storage version changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { partsOf } from '../src/handle.ts';
import { type ApiServer, startApiServer } from '../src/index.ts';
import { openWatch, raw } from '../src/testing/index.ts';
import { startWebhookServer, type WebhookServer } from './admission/fixture.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const V1 = '/apis/example.com/v1/namespaces/default/sprockets';
const V2 = '/apis/example.com/v2/namespaces/default/sprockets';

const v1Schema = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } } },
};
const v2Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        dimensions: { type: 'object', properties: { size: { type: 'integer' } } },
        paint: { type: 'object', properties: { color: { type: 'string' } } },
      },
    },
  },
};

function sprocketCrd(hooks: WebhookServer, storage: 'v1' | 'v2', url = `${hooks.url}/convert`) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'sprockets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' },
      versions: [
        { name: 'v1', served: true, storage: storage === 'v1', schema: { openAPIV3Schema: v1Schema } },
        { name: 'v2', served: true, storage: storage === 'v2', schema: { openAPIV3Schema: v2Schema } },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle: hooks.caBundle } },
      },
    },
  };
}

/** The test's conversion webhook: flat v1 spec ⇄ nested v2 spec. */
function convertSprocket(obj: any, desired: string): any {
  const out = structuredClone(obj);
  out.apiVersion = desired;
  const to = desired.split('/')[1];
  if (obj.apiVersion.endsWith('/v1') && to === 'v2')
    out.spec = { dimensions: { size: obj.spec?.size }, paint: { color: obj.spec?.color } };
  if (obj.apiVersion.endsWith('/v2') && to === 'v1')
    out.spec = { size: obj.spec?.dimensions?.size, color: obj.spec?.paint?.color };
  return out;
}

const converting = (review: any, tweak: (o: any) => any = (o) => o) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  response: {
    uid: review.request.uid,
    result: { status: 'Success' },
    convertedObjects: review.request.objects.map((o: any) =>
      tweak(convertSprocket(o, review.request.desiredAPIVersion)),
    ),
  },
});

describe('CRD conversion webhooks', () => {
  let s: ApiServer;
  let hooks: WebhookServer;
  const reviews = () => hooks.at('/convert').map((r) => r.body);

  before(async () => {
    s = await startApiServer({ port: 0 });
    hooks = await startWebhookServer();
    hooks.on('/convert', (r) => converting(r));
    const made = await raw(s, 'POST', CRDS, sprocketCrd(hooks, 'v2'));
    assert.equal(made.status, 201, made.text);
    for (let i = 0; i < 50 && (await raw(s, 'GET', V1)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 20));
  });
  after(async () => {
    await s.close();
    await hooks.close();
  });

  it('round-trips: written in v1, stored in v2, read and rewritten in v2, read back in v1 with every field', async () => {
    const created = await raw(s, 'POST', V1, {
      apiVersion: 'example.com/v1',
      kind: 'Sprocket',
      metadata: { name: 'a', labels: { team: 'x' } },
      spec: { size: 3, color: 'red' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json().spec, { size: 3, color: 'red' });
    assert.equal(created.json().apiVersion, 'example.com/v1');
    const toStorage = reviews()[0];
    assert.equal(toStorage.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(toStorage.kind, 'ConversionReview');
    assert.equal(toStorage.request.desiredAPIVersion, 'example.com/v2');
    assert.deepEqual(
      toStorage.request.objects.map((o: any) => o.spec),
      [{ size: 3, color: 'red' }],
    );

    const stored = partsOf(s).core.store.get('example.com/sprockets', 'default', 'a')!;
    assert.equal(stored.apiVersion, 'example.com/v2');
    assert.deepEqual(stored.spec, { dimensions: { size: 3 }, paint: { color: 'red' } });

    const asV2 = (await raw(s, 'GET', `${V2}/a`)).json();
    assert.deepEqual(asV2.spec, { dimensions: { size: 3 }, paint: { color: 'red' } });
    asV2.spec.paint.color = 'blue';
    const updated = await raw(s, 'PUT', `${V2}/a`, asV2);
    assert.equal(updated.status, 200, updated.text);

    const back = (await raw(s, 'GET', `${V1}/a`)).json();
    assert.equal(back.apiVersion, 'example.com/v1');
    assert.deepEqual(back.spec, { size: 3, color: 'blue' });
    assert.deepEqual(back.metadata.labels, { team: 'x' });
    assert.equal(back.metadata.uid, stored.metadata.uid);
    assert.equal(back.metadata.resourceVersion, updated.json().metadata.resourceVersion);
  });

  it('converts a list in one ConversionReview and leaves objects already in the version alone', async () => {
    for (const n of ['b', 'c'])
      assert.equal(
        (
          await raw(s, 'POST', V2, {
            apiVersion: 'example.com/v2',
            kind: 'Sprocket',
            metadata: { name: n },
            spec: { dimensions: { size: 1 }, paint: { color: 'red' } },
          })
        ).status,
        201,
      );
    const before = reviews().length;
    const listV2 = (await raw(s, 'GET', V2)).json();
    assert.equal(listV2.items.length, 3);
    assert.equal(reviews().length, before, 'no review when every object is stored in the requested version');
    const listV1 = (await raw(s, 'GET', V1)).json();
    assert.deepEqual(
      listV1.items.map((o: any) => [o.metadata.name, o.apiVersion, o.spec.size]),
      [
        ['a', 'example.com/v1', 3],
        ['b', 'example.com/v1', 1],
        ['c', 'example.com/v1', 1],
      ],
    );
    assert.equal(listV1.apiVersion, 'example.com/v1');
    assert.equal(reviews().length, before + 1);
    assert.equal(reviews().at(-1).request.objects.length, 3);
  });

  it('keeps watch events in commit order while each waits for its conversion', async () => {
    hooks.on(
      '/convert',
      (r) => new Promise((resolve) => setTimeout(() => resolve(converting(r)), Math.floor(Math.random() * 25))),
    );
    const w = openWatch(
      s,
      `${V1}?watch=true&resourceVersion=${(await raw(s, 'GET', V2)).json().metadata.resourceVersion}`,
    );
    try {
      const rvs: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await raw(s, 'POST', V2, {
          apiVersion: 'example.com/v2',
          kind: 'Sprocket',
          metadata: { name: `w${i}` },
          spec: { dimensions: { size: i }, paint: { color: 'red' } },
        });
        rvs.push(res.json().metadata.resourceVersion);
      }
      await w.next((e) => e.object?.metadata?.name === 'w7', 10_000);
      const got = w.events.filter((e) => e.type === 'ADDED');
      assert.deepEqual(
        got.map((e) => e.object.metadata.resourceVersion),
        rvs,
      );
      assert.deepEqual(
        got.map((e) => e.object.spec.size),
        [0, 1, 2, 3, 4, 5, 6, 7],
      );
      assert.ok(got.every((e) => e.object.apiVersion === 'example.com/v1'));
    } finally {
      w.stop();
      hooks.on('/convert', (r) => converting(r));
    }
  });

  const failures: Array<{ name: string; answer: (r: any) => unknown; message: string | RegExp }> = [
    {
      name: 'a failed result',
      answer: (r) => ({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response: { uid: r.request.uid, result: { status: 'Failure', message: 'cannot convert today' } },
      }),
      message: 'conversion webhook for example.com/v2, Kind=Sprocket failed: cannot convert today',
    },
    {
      name: 'garbage',
      answer: () => ({ raw: '<nope>' }),
      message:
        "conversion webhook for example.com/v2, Kind=Sprocket failed: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value",
    },
    {
      name: 'another request’s uid',
      answer: (r) => ({ ...converting(r), response: { ...(converting(r) as any).response, uid: 'x' } }),
      message:
        /^conversion webhook for example\.com\/v2, Kind=Sprocket failed: expected response\.uid="[0-9a-f-]{36}", got "x"$/,
    },
    {
      name: 'too few objects',
      answer: (r) => ({
        ...converting(r),
        response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: [] },
      }),
      message: 'conversion webhook for example.com/v2, Kind=Sprocket returned 0 objects, expected 1',
    },
    {
      name: 'a renamed object',
      answer: (r) => converting(r, (o) => ({ ...o, metadata: { ...o.metadata, name: 'other' } })),
      message:
        'conversion webhook for example.com/v2, Kind=Sprocket returned invalid object: must have the same name: a != other',
    },
    {
      name: 'the wrong version',
      answer: (r) => converting(r, (o) => ({ ...o, apiVersion: 'example.com/v9' })),
      message:
        'conversion webhook for example.com/v2, Kind=Sprocket returned invalid object at index 0: invalid groupVersion (expected example.com/v1, received example.com/v9)',
    },
  ];
  for (const f of failures) {
    it(`answers a read with kube's 500 when the webhook returns ${f.name}`, async () => {
      hooks.on('/convert', f.answer);
      try {
        const res = await raw(s, 'GET', `${V1}/a`);
        assert.equal(res.status, 500, res.text);
        const st = res.json();
        // kube's Status has no reason here, and an empty reason is omitted from the JSON
        assert.equal(st.reason, undefined);
        if (typeof f.message === 'string') assert.equal(st.message, f.message);
        else assert.match(st.message, f.message);
      } finally {
        hooks.on('/convert', (r) => converting(r));
      }
    });
  }

  it('keeps labels and annotations the webhook sets, restores the rest of metadata', async () => {
    hooks.on('/convert', (r) =>
      converting(r, (o) => ({
        ...o,
        metadata: { ...o.metadata, labels: { converted: 'yes' }, generation: 99, finalizers: ['x/y'] },
      })),
    );
    try {
      const got = (await raw(s, 'GET', `${V1}/a`)).json();
      assert.deepEqual(got.metadata.labels, { converted: 'yes' });
      assert.equal(got.metadata.generation, 2);
      assert.equal(got.metadata.finalizers, undefined);
    } finally {
      hooks.on('/convert', (r) => converting(r));
    }
  });

  it('fails writes that need conversion, and ends watches, when the webhook is unreachable', async () => {
    const w = openWatch(
      s,
      `${V1}?watch=true&resourceVersion=${(await raw(s, 'GET', V2)).json().metadata.resourceVersion}`,
    );
    const crd = (await raw(s, 'GET', `${CRDS}/sprockets.example.com`)).json();
    crd.spec.conversion.webhook.clientConfig.url = 'https://127.0.0.1:1/convert';
    assert.equal((await raw(s, 'PUT', `${CRDS}/sprockets.example.com`, crd)).status, 200);
    await new Promise((r) => setTimeout(r, 50));
    try {
      const res = await raw(s, 'POST', V1, {
        apiVersion: 'example.com/v1',
        kind: 'Sprocket',
        metadata: { name: 'unreachable' },
        spec: { size: 1 },
      });
      assert.equal(res.status, 500, res.text);
      assert.equal(
        res.json().message,
        'conversion webhook for example.com/v1, Kind=Sprocket failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused',
      );
      // stored in v2, so the write needs no conversion; the v1 watch does, fails, and ends
      assert.equal(
        (
          await raw(s, 'POST', V2, {
            apiVersion: 'example.com/v2',
            kind: 'Sprocket',
            metadata: { name: 'no-conv' },
            spec: {},
          })
        ).status,
        201,
      );
      assert.equal(await w.ended, 200);
      assert.ok(!w.events.some((e) => e.object?.metadata?.name === 'no-conv'));
    } finally {
      w.stop();
      crd.metadata.resourceVersion = undefined;
      crd.spec.conversion.webhook.clientConfig.url = `${hooks.url}/convert`;
      assert.equal((await raw(s, 'PUT', `${CRDS}/sprockets.example.com`, crd)).status, 200);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('stores new writes in a new storage version, keeps old objects as they are, and records storedVersions', async () => {
    const crd = (await raw(s, 'GET', `${CRDS}/sprockets.example.com`)).json();
    assert.deepEqual(crd.status.storedVersions, ['v2']);
    crd.spec.versions[0].storage = true;
    crd.spec.versions[1].storage = false;
    assert.equal((await raw(s, 'PUT', `${CRDS}/sprockets.example.com`, crd)).status, 200);
    let status: any;
    for (let i = 0; i < 50; i++) {
      status = (await raw(s, 'GET', `${CRDS}/sprockets.example.com`)).json().status;
      if (status.storedVersions.length === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(status.storedVersions, ['v2', 'v1']);
    assert.equal(
      (
        await raw(s, 'POST', V2, {
          apiVersion: 'example.com/v2',
          kind: 'Sprocket',
          metadata: { name: 'new' },
          spec: { dimensions: { size: 5 }, paint: { color: 'red' } },
        })
      ).status,
      201,
    );
    assert.equal(partsOf(s).core.store.get('example.com/sprockets', 'default', 'new')!.apiVersion, 'example.com/v1');
    assert.deepEqual(partsOf(s).core.store.get('example.com/sprockets', 'default', 'new')!.spec, {
      size: 5,
      color: 'red',
    });
    assert.equal(partsOf(s).core.store.get('example.com/sprockets', 'default', 'b')!.apiVersion, 'example.com/v2');
    // a v2 list now mixes stored versions: only the v1-stored object goes to the webhook
    const before = reviews().length;
    const list = (await raw(s, 'GET', V2)).json();
    assert.ok(
      list.items.every((o: any) => o.apiVersion === 'example.com/v2' && !('size' in o.spec)),
      JSON.stringify(list.items.map((o: any) => [o.metadata.name, o.spec])),
    );
    const review = reviews().slice(before).at(-1);
    assert.deepEqual(
      review.request.objects.map((o: any) => o.metadata.name),
      ['new'],
    );
  });
});
