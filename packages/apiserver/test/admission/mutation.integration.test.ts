// What webhooks do to a request: JSON patches, denials (validating and mutating) with kube's Status, warnings
// passed through as Warning headers, the order mutating → schema defaulting/validation → validating,
// reinvocation, matchPolicy Equivalent across CRD versions, and matchConditions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '../../src/index.ts';
import { raw } from '../../src/testing/index.ts';
import {
  admissionAnswer,
  allow,
  configuration,
  jsonPatch,
  startWebhookServer,
  type WebhookServer,
  webhookEntry,
} from './fixture.ts';

const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CMS = '/api/v1/namespaces/default/configmaps';
const cmRule = (operations = ['CREATE']) => [
  { operations, apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
];
const gadgetRule = (apiVersions: string[]) => [
  { operations: ['CREATE', 'UPDATE'], apiGroups: ['example.com'], apiVersions, resources: ['gadgets'] },
];

const gadgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['color'],
      properties: {
        size: { type: 'integer', default: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'] },
      },
      'x-kubernetes-validations': [
        { rule: "self.size < 5 || self.color == 'red'", message: 'only red gadgets may be big' },
      ],
    },
  },
};
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: gadgetSchema } },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: gadgetSchema } },
    ],
  },
};
const gadget = (version: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: `example.com/${version}`,
  kind: 'Gadget',
  metadata: { name },
  spec,
});

describe('admission webhook effects', () => {
  let s: ApiServer;
  let hooks: WebhookServer;
  const install = async (kind: 'Mutating' | 'Validating', name: string, webhooks: Record<string, unknown>[]) => {
    const res = await raw(s, 'POST', kind === 'Mutating' ? MWC : VWC, configuration(kind, name, webhooks));
    assert.equal(res.status, 201, res.text);
  };
  const remove = (kind: 'Mutating' | 'Validating', name: string) =>
    raw(s, 'DELETE', `${kind === 'Mutating' ? MWC : VWC}/${name}`);

  before(async () => {
    s = await startApiServer({ port: 0 });
    hooks = await startWebhookServer();
    assert.equal(
      (await raw(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgetCrd)).status,
      201,
    );
    for (
      let i = 0;
      i < 50 && (await raw(s, 'GET', '/apis/example.com/v1/namespaces/default/gadgets')).status !== 200;
      i++
    )
      await new Promise((r) => setTimeout(r, 20));
  });
  after(async () => {
    await s.close();
    await hooks.close();
  });

  it('applies a JSON patch and passes its warnings through', async () => {
    hooks.on('/patch', (r) =>
      allow(r, {
        ...jsonPatch([
          { op: 'add', path: '/metadata/labels', value: { injected: 'yes' } },
          { op: 'add', path: '/data/extra', value: 'x' },
        ]),
        warnings: ['defaulted "extra"'],
      }),
    );
    await install('Mutating', 'patcher', [webhookEntry(hooks, 'patch.example.com', '/patch', { rules: cmRule() })]);
    try {
      const res = await raw(s, 'POST', CMS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'patched' },
        data: { a: '1' },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.warning, '299 - "defaulted \\"extra\\""');
      const got = (await raw(s, 'GET', `${CMS}/patched`)).json();
      assert.deepEqual(got.metadata.labels, { injected: 'yes' });
      assert.deepEqual(got.data, { a: '1', extra: 'x' });
    } finally {
      await remove('Mutating', 'patcher');
    }
  });

  const denials: Array<{
    name: string;
    kind: 'Mutating' | 'Validating';
    status?: Record<string, unknown>;
    code: number;
    reason: string;
    message: string;
  }> = [
    {
      name: 'validating, with code and reason',
      kind: 'Validating',
      status: { code: 403, reason: 'Forbidden', message: 'no thanks' },
      code: 403,
      reason: 'Forbidden',
      message: 'admission webhook "deny.example.com" denied the request: no thanks',
    },
    {
      name: 'validating, without a status',
      kind: 'Validating',
      code: 400,
      reason: '',
      message: 'admission webhook "deny.example.com" denied the request without explanation',
    },
    {
      name: 'validating, with a reason only',
      kind: 'Validating',
      status: { code: 422, reason: 'Invalid' },
      code: 422,
      reason: 'Invalid',
      message: 'admission webhook "deny.example.com" denied the request: Invalid',
    },
    {
      name: 'validating, with a code below 400',
      kind: 'Validating',
      status: { code: 200, message: 'nope' },
      code: 400,
      reason: '',
      message: 'admission webhook "deny.example.com" denied the request: nope',
    },
    {
      name: 'mutating, with code and reason',
      kind: 'Mutating',
      status: { code: 403, reason: 'Forbidden', message: 'not today' },
      code: 403,
      reason: 'Forbidden',
      message: 'admission webhook "deny.example.com" denied the request: not today',
    },
  ];
  for (const d of denials) {
    it(`returns a denial as kube does: ${d.name}`, async () => {
      hooks.on('/deny', (r) =>
        admissionAnswer(r, { allowed: false, ...(d.status ? { status: d.status } : {}), warnings: ['think again'] }),
      );
      await install(d.kind, 'denier', [webhookEntry(hooks, 'deny.example.com', '/deny', { rules: cmRule() })]);
      try {
        const res = await raw(s, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'denied' } });
        assert.equal(res.status, d.code, res.text);
        const st = res.json();
        // an empty reason is left out of the Status (omitempty), as kube-apiserver does
        assert.deepEqual(
          { kind: st.kind, status: st.status, code: st.code, reason: st.reason ?? '', message: st.message },
          { kind: 'Status', status: 'Failure', code: d.code, reason: d.reason, message: d.message },
        );
        assert.equal(res.headers.warning, '299 - "think again"');
        assert.equal((await raw(s, 'GET', `${CMS}/denied`)).status, 404);
      } finally {
        await remove(d.kind, 'denier');
      }
    });
  }

  // Decoding (pruning, schema defaults: KEP-575) comes first, so mutating webhooks already see defaults.
  it('decodes and defaults, runs mutating webhooks, then schema/CEL validation, then validating webhooks', async () => {
    const seen: Record<string, any[]> = { mutate: [], validate: [] };
    hooks.on('/order-m', (r) => {
      seen.mutate!.push(r.request.object);
      return allow(r, jsonPatch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'true' } }]));
    });
    hooks.on('/order-v', (r) => {
      seen.validate!.push(r.request.object);
      return allow(r);
    });
    await install('Mutating', 'order-m', [
      webhookEntry(hooks, 'm.example.com', '/order-m', { rules: gadgetRule(['v1']) }),
    ]);
    await install('Validating', 'order-v', [
      webhookEntry(hooks, 'v.example.com', '/order-v', { rules: gadgetRule(['v1']) }),
    ]);
    try {
      const ok = await raw(
        s,
        'POST',
        '/apis/example.com/v1/namespaces/default/gadgets',
        gadget('v1', 'g1', { color: 'blue' }),
      );
      assert.equal(ok.status, 201, ok.text);
      assert.equal(seen.mutate![0].spec.size, 1, 'mutating webhooks see the object defaulted at decoding');
      assert.deepEqual(
        seen.validate![0].spec,
        { color: 'blue', size: 1 },
        'validating webhooks see the defaulted object',
      );
      assert.equal(seen.validate![0].metadata.labels.mutated, 'true');
      // invalid by CEL: the mutating webhook was asked, the validating one never is
      const bad = await raw(
        s,
        'POST',
        '/apis/example.com/v1/namespaces/default/gadgets',
        gadget('v1', 'g2', { color: 'blue', size: 7 }),
      );
      assert.equal(bad.status, 422, bad.text);
      assert.match(bad.json().message, /only red gadgets may be big/);
      assert.equal(seen.mutate!.length, 2);
      assert.equal(seen.validate!.length, 1);
      // a strict-decoding error is the decoder's: no webhook is asked
      const unknown = await raw(
        s,
        'POST',
        '/apis/example.com/v1/namespaces/default/gadgets?fieldValidation=Strict',
        gadget('v1', 'g3', { color: 'blue', shade: 'dark' } as never),
      );
      assert.equal(unknown.status, 400, unknown.text);
      assert.match(unknown.json().message, /strict decoding error: unknown field "spec.shade"/);
      assert.equal(seen.mutate!.length, 2);
    } finally {
      await remove('Mutating', 'order-m');
      await remove('Validating', 'order-v');
    }
  });

  for (const policy of ['IfNeeded', 'Never']) {
    it(`reinvocationPolicy ${policy}: an earlier webhook ${policy === 'Never' ? 'is not' : 'is'} called again after a later one changed the object`, async () => {
      const calls: any[] = [];
      hooks.on('/first', (r) => {
        calls.push(r.request.object);
        return allow(r);
      });
      hooks.on('/second', (r) =>
        allow(r, jsonPatch([{ op: 'add', path: '/metadata/labels', value: { second: 'was-here' } }])),
      );
      // configurations run in name order
      await install('Mutating', 'a-first', [
        webhookEntry(hooks, 'first.example.com', '/first', { rules: cmRule(), reinvocationPolicy: policy }),
      ]);
      await install('Mutating', 'b-second', [
        webhookEntry(hooks, 'second.example.com', '/second', { rules: cmRule() }),
      ]);
      try {
        const res = await raw(s, 'POST', CMS, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `reinvoke-${policy.toLowerCase()}` },
        });
        assert.equal(res.status, 201, res.text);
        assert.equal(calls.length, policy === 'IfNeeded' ? 2 : 1);
        assert.equal(calls[0].metadata.labels, undefined);
        if (policy === 'IfNeeded') assert.deepEqual(calls[1].metadata.labels, { second: 'was-here' });
      } finally {
        await remove('Mutating', 'a-first');
        await remove('Mutating', 'b-second');
      }
    });
  }

  for (const matchPolicy of ['Equivalent', 'Exact']) {
    it(`matchPolicy ${matchPolicy}: a rule for v1 ${matchPolicy === 'Exact' ? 'ignores' : 'takes'} a write through v2`, async () => {
      const reviews: any[] = [];
      hooks.on('/equiv', (r) => {
        reviews.push(r.request);
        return allow(r, jsonPatch([{ op: 'replace', path: '/spec/color', value: 'red' }]));
      });
      await install('Mutating', 'equiv', [
        webhookEntry(hooks, 'equiv.example.com', '/equiv', { rules: gadgetRule(['v1']), matchPolicy }),
      ]);
      try {
        const res = await raw(
          s,
          'POST',
          '/apis/example.com/v2/namespaces/default/gadgets',
          gadget('v2', `eq-${matchPolicy.toLowerCase()}`, { color: 'blue' }),
        );
        assert.equal(res.status, 201, res.text);
        if (matchPolicy === 'Exact') {
          assert.equal(reviews.length, 0);
          assert.equal(res.json().spec.color, 'blue');
          return;
        }
        assert.equal(reviews.length, 1);
        assert.deepEqual(reviews[0].kind, { group: 'example.com', version: 'v1', kind: 'Gadget' });
        assert.deepEqual(reviews[0].requestKind, { group: 'example.com', version: 'v2', kind: 'Gadget' });
        assert.deepEqual(reviews[0].requestResource, { group: 'example.com', version: 'v2', resource: 'gadgets' });
        assert.equal(reviews[0].object.apiVersion, 'example.com/v1');
        assert.equal(res.json().apiVersion, 'example.com/v2');
        assert.equal(res.json().spec.color, 'red');
      } finally {
        await remove('Mutating', 'equiv');
      }
    });
  }

  it('matchConditions choose which requests are sent; an expression error fails closed as Forbidden', async () => {
    hooks.on('/cond', (r) => allow(r));
    await install('Validating', 'cond', [
      webhookEntry(hooks, 'cond.example.com', '/cond', {
        rules: cmRule(),
        matchConditions: [{ name: 'only-yes', expression: "object.metadata.name.startsWith('yes')" }],
      }),
      webhookEntry(hooks, 'broken.example.com', '/cond', {
        rules: cmRule(),
        matchConditions: [{ name: 'broken', expression: "object.data.missing == 'x'" }],
      }),
    ]);
    try {
      const no = await raw(s, 'POST', CMS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'no-cond' },
        data: { missing: 'y' },
      });
      assert.equal(no.status, 201, no.text);
      const yes = await raw(s, 'POST', CMS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'yes-cond' },
        data: { missing: 'y' },
      });
      assert.equal(yes.status, 201, yes.text);
      assert.deepEqual(
        hooks.at('/cond').map((r) => r.body.request.name),
        ['yes-cond'],
      );
      const broken = await raw(s, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-data' } });
      assert.equal(broken.status, 403, broken.text);
      assert.match(
        broken.json().message,
        /^configmaps "no-data" is forbidden: expression 'object\.data\.missing == 'x'' resulted in error: /,
      );
    } finally {
      await remove('Validating', 'cond');
    }
  });

  it('refuses a patch for a DELETE and a patch that does not apply, as internal errors', async () => {
    hooks.on('/bad-patch', (r) => allow(r, jsonPatch([{ op: 'replace', path: '/spec/nothing/here', value: 1 }])));
    await install('Mutating', 'bad-patch', [
      webhookEntry(hooks, 'bad-patch.example.com', '/bad-patch', { rules: cmRule(['CREATE', 'DELETE']) }),
    ]);
    try {
      const created = await raw(s, 'POST', CMS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'bad-patch' },
      });
      assert.equal(created.status, 500);
      assert.equal(
        created.json().message,
        'Internal error occurred: admission webhook "bad-patch.example.com" returned a JSON patch that cannot be applied to the object',
      );
      await remove('Mutating', 'bad-patch');
      assert.equal(
        (await raw(s, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-patch' } })).status,
        201,
      );
      await install('Mutating', 'bad-patch', [
        webhookEntry(hooks, 'bad-patch.example.com', '/bad-patch', { rules: cmRule(['DELETE']) }),
      ]);
      const deleted = await raw(s, 'DELETE', `${CMS}/bad-patch`);
      assert.equal(deleted.status, 500);
      assert.equal(
        deleted.json().message,
        'Internal error occurred: admission webhook "bad-patch.example.com" attempted to modify the object, which is not supported for this operation',
      );
      assert.equal((await raw(s, 'GET', `${CMS}/bad-patch`)).status, 200);
    } finally {
      await remove('Mutating', 'bad-patch');
    }
  });

  it('collects the warnings of every validating webhook, in webhook order', async () => {
    hooks.on('/warn-1', (r) => allow(r, { warnings: ['first'] }));
    hooks.on(
      '/warn-2',
      (r) => new Promise((resolve) => setTimeout(() => resolve(allow(r, { warnings: ['second'] })), 50)),
    );
    await install('Validating', 'warners', [
      webhookEntry(hooks, 'w1.example.com', '/warn-2', { rules: cmRule() }),
      webhookEntry(hooks, 'w2.example.com', '/warn-1', { rules: cmRule() }),
    ]);
    try {
      const res = await raw(s, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned' } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.warning, '299 - "second", 299 - "first"');
    } finally {
      await remove('Validating', 'warners');
    }
  });
});
