import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  normalizeRoutePath,
  type RoutedService,
  renderPathTemplate,
  resolveServiceRoutePath,
  validatePathTemplate,
} from '../../src/common/path-template/index.ts';
import type { RuntimeConfigObject } from '../../src/common/runtime-config/index.ts';

// docs/aim.md's "Routing Templates → Example", unchanged.
const seedRuntimeConfig = parse(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMRuntimeConfig
metadata:
  name: default
  namespace: ml-team
spec:
  routing:
    enabled: true
    gatewayRef:
      name: inference-gateway
      namespace: gateways
    pathTemplate: "/ml/{.metadata.namespace}/{.metadata.labels['project']}"
`) as RuntimeConfigObject;
const seedService = parse(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata:
  name: qwen-chat
  namespace: ml-team
  labels:
    project: conversational-ai
spec:
  model:
    name: qwen-qwen3-32b
  # routing.pathTemplate omitted - uses runtime config template
`) as RoutedService;
const seedOverrideSpec = parse(`
spec:
  model:
    ref: qwen-qwen3-32b
  routing:
    pathTemplate: "/custom/{.metadata.name}"
`) as { spec: RoutedService['spec'] };

describe('resolveServiceRoutePath (the AIM design precedence, docs/aim.md)', () => {
  const runtimeTemplate = seedRuntimeConfig.spec?.routing?.pathTemplate;
  it('runtime config template: /ml/ml-team/conversational-ai', () => {
    assert.deepEqual(resolveServiceRoutePath(seedService, runtimeTemplate), {
      ok: true,
      path: '/ml/ml-team/conversational-ai',
      source: 'RuntimeConfig',
    });
  });
  it('service override ignores the runtime config: /custom/qwen-chat', () => {
    const service = { ...seedService, spec: seedOverrideSpec.spec };
    assert.deepEqual(resolveServiceRoutePath(service, runtimeTemplate), {
      ok: true,
      path: '/custom/qwen-chat',
      source: 'Service',
    });
  });
  it('default /<namespace>/<uid> when no template (empty strings count as unset)', () => {
    const service = {
      metadata: { ...seedService.metadata, namespace: 'Testing', uid: '12345678-90AB' },
      spec: { routing: { pathTemplate: '' } },
    };
    assert.deepEqual(resolveServiceRoutePath(service, ''), {
      ok: true,
      path: '/testing/12345678-90ab',
      source: 'Default',
    });
  });
  it('default without a uid is an error naming metadata', () => {
    const got = resolveServiceRoutePath(seedService);
    assert.equal(got.ok, false);
    if (!got.ok) assert.equal(got.error.field, 'metadata');
  });
  it('an invalid service template fails with the service field; no fallback to the runtime config', () => {
    const service = { ...seedService, spec: { routing: { pathTemplate: '/{.metadata.labels.missing}' } } };
    const got = resolveServiceRoutePath(service, runtimeTemplate);
    assert.equal(got.ok, false);
    if (got.ok) return;
    assert.equal(got.source, 'Service');
    assert.deepEqual([got.error.reason, got.error.field], ['PathTemplateInvalid', 'spec.routing.pathTemplate']);
    assert.match(got.error.message, /missing is not found/);
  });
  it('an invalid runtime config template names the runtime config field', () => {
    const got = resolveServiceRoutePath(seedService, '/{.metadata.labels.team}');
    assert.equal(got.ok, false);
    if (!got.ok) assert.equal(got.error.field, 'runtimeConfig.spec.routing.pathTemplate');
  });
});

const obj = {
  metadata: {
    name: 'svc',
    namespace: 'Team-A',
    uid: 'u-1',
    labels: {
      team: 'Workload-42',
      'app.kubernetes.io/name': 'Llama',
      spaced: 'a b',
      slashed: 'Meta/Llama-3',
      pct: '100%',
      escaped: 'org%2Fteam',
      dotted: '%2e%2E',
      empty: '',
    },
    annotations: { uni: 'Café Ünï', dots: '..', hash: 'a#b?c' },
  },
  spec: { replicas: 3, flag: true, list: [{ n: 'first' }, { n: 'second' }], nested: { a: 1 }, long: 'x'.repeat(190) },
};

describe('renderPathTemplate', () => {
  const ok: { name: string; template: string; want: string }[] = [
    { name: 'literal only', template: '/static/path', want: '/static/path' },
    {
      name: 'lowercases values and literals',
      template: '/Api/{.metadata.namespace}/{.metadata.labels.team}',
      want: '/api/team-a/workload-42',
    },
    { name: 'quoted bracket key without dot', template: "/{.metadata.labels['team']}", want: '/workload-42' },
    { name: 'escaped dots in a key', template: '/{.metadata.labels.app\\.kubernetes\\.io/name}', want: '/llama' },
    { name: 'collapses // and drops trailing /', template: '//a//{.metadata.name}//', want: '/a/svc' },
    { name: 'adds the leading /', template: '{.metadata.name}/x', want: '/svc/x' },
    { name: 'space encoded', template: '/{.metadata.labels.spaced}', want: '/a%20b' },
    { name: 'value with / becomes two segments', template: '/{.metadata.labels.slashed}', want: '/meta/llama-3' },
    { name: '% encoded', template: '/{.metadata.labels.pct}', want: '/100%25' },
    {
      name: 'an escape already there is kept, not encoded twice',
      template: '/{.metadata.labels.escaped}',
      want: '/org%2Fteam',
    },
    { name: 'an empty label value is an empty segment', template: '/x/{.metadata.labels.empty}/y', want: '/x/y' },
    {
      name: 'a long template that collapses to a short path',
      template: `/a${'/'.repeat(1500)}{.metadata.name}`,
      want: '/a/svc',
    },
    {
      name: 'unicode lowercased then UTF-8 percent-encoded',
      template: '/{.metadata.annotations.uni}',
      want: '/caf%C3%A9%20%C3%BCn%C3%AF',
    },
    {
      name: '# and ? encoded (no fragment or query injection)',
      template: '/{.metadata.annotations.hash}',
      want: '/a%23b%3Fc',
    },
    { name: 'sub-delims encoded', template: "/a!b'(c)*d", want: '/a%21b%27%28c%29%2Ad' },
    { name: 'numbers and booleans', template: '/{.spec.replicas}/{.spec.flag}', want: '/3/true' },
    { name: 'single array index', template: '/{.spec.list[1].n}', want: '/second' },
    { name: 'whitespace around expression trimmed', template: '/{ .metadata.name }', want: '/svc' },
    {
      name: 'exactly 200 characters',
      template: `/{.spec.long}/${'y'.repeat(8)}`,
      want: `/${'x'.repeat(190)}/${'y'.repeat(8)}`,
    },
  ];
  for (const c of ok) {
    it(`renders: ${c.name}`, () => {
      assert.deepEqual(renderPathTemplate(c.template, obj, 'spec.routing.pathTemplate'), { ok: true, path: c.want });
    });
  }

  const bad: { name: string; template: string; cause: RegExp }[] = [
    { name: 'stray }', template: '/a}/{.metadata.name}', cause: /unbalanced "}" at offset 2/ },
    { name: 'stray {', template: '/{.metadata.name}/{', cause: /unbalanced "{" at offset 18/ },
    { name: 'nested braces', template: '/{.metadata.{.x}}', cause: /unbalanced/ },
    { name: 'empty placeholder', template: '/{}', cause: /empty placeholder/ },
    { name: 'recursive descent', template: '/{..name}', cause: /recursive descent/ },
    { name: 'filter', template: "/{.spec.list[?(@.n=='first')].n}", cause: /filters \?\(\) are not allowed/ },
    { name: 'wildcard', template: '/{.metadata.labels.*}', cause: /wildcards/ },
    { name: 'slice', template: '/{.spec.list[0:2].n}', cause: /slices/ },
    { name: 'union', template: "/{.metadata['name','namespace']}", cause: /unions/ },
    { name: 'range block', template: '/{range .spec.list}', cause: /range blocks are not allowed/ },
    {
      name: 'parse error',
      template: '/{.metadata.labels["team"]}',
      cause: /invalid jsonpath expression.*invalid array index/,
    },
    { name: 'missing label', template: '/{.metadata.labels.nope}', cause: /nope is not found/ },
    { name: 'missing field', template: '/{.status.routing.path}', cause: /status is not found/ },
    { name: 'non-scalar value', template: '/{.spec.nested}', cause: /not a string, number or boolean/ },
    { name: 'only empty values', template: '/{.metadata.labels.empty}/', cause: /empty/ },
    { name: 'dot-dot value', template: '/x/{.metadata.annotations.dots}/y', cause: /dot segments/ },
    { name: 'literal ..', template: '/x/../{.metadata.name}', cause: /dot segments/ },
    { name: 'percent-encoded ..', template: '/x/{.metadata.labels.dotted}', cause: /dot segments/ },
    { name: 'root path only', template: '/', cause: /empty/ },
    {
      name: 'over 200 characters',
      template: `/{.spec.long}/${'y'.repeat(9)}`,
      cause: /201 characters after encoding, more than the maximum of 200/,
    },
    { name: 'over 200 only after encoding', template: `/${'%'.repeat(67)}`, cause: /202 characters after encoding/ },
    {
      name: 'very long key',
      template: `/{.metadata.labels.${'k'.repeat(300)}}`,
      cause: /placeholder is \d+ characters, more than the maximum of 256/,
    },
    { name: 'long template, long path', template: `/${'a'.repeat(2000)}`, cause: /2001 characters after encoding/ },
    { name: 'pathological template', template: `/${'a'.repeat(20_000)}`, cause: /template is 20001 characters/ },
  ];
  for (const c of bad) {
    it(`rejects: ${c.name}`, () => {
      const got = renderPathTemplate(c.template, obj, 'spec.routing.pathTemplate');
      assert.equal(got.ok, false, JSON.stringify(got));
      if (got.ok) return;
      assert.equal(got.error.reason, 'PathTemplateInvalid');
      assert.equal(got.error.field, 'spec.routing.pathTemplate');
      assert.match(got.error.message, c.cause);
    });
  }

  it('flags a bracketed key with an unescaped dot and shows the escaped form', () => {
    const template = "/{.metadata.labels['app.kubernetes.io/name']}";
    const got = renderPathTemplate(template, obj, 'spec.routing.pathTemplate');
    assert.equal(got.ok, false);
    if (got.ok) return;
    assert.match(got.error.message, /bracketed key \['app\.kubernetes\.io\/name'\] contains a dot/);
    assert.ok(
      got.error.message.includes('write {.metadata.labels.app\\.kubernetes\\.io/name} instead'),
      got.error.message,
    );
    // The suggested form really works.
    assert.deepEqual(renderPathTemplate('/{.metadata.labels.app\\.kubernetes\\.io/name}', obj, 'f'), {
      ok: true,
      path: '/llama',
    });
  });
});

describe('validatePathTemplate (static, no object)', () => {
  const cases: { template: string; count: number }[] = [
    { template: "/ml/{.metadata.namespace}/{.metadata.labels['project']}", count: 0 },
    { template: '/custom/{.metadata.name}', count: 0 },
    { template: '/{..x}/{.a[*]}', count: 2 },
    { template: "/{.metadata.labels['a.b']}", count: 1 },
    { template: '/{', count: 1 },
  ];
  for (const c of cases) {
    it(`${c.template} -> ${c.count} error(s)`, () => {
      const errors = validatePathTemplate(c.template, 'spec.routing.pathTemplate');
      assert.equal(errors.length, c.count, JSON.stringify(errors));
      for (const e of errors) assert.equal(e.field, 'spec.routing.pathTemplate');
    });
  }
});

describe('normalizeRoutePath', () => {
  const cases: { raw: string; want: string | RegExp }[] = [
    { raw: '/A/B/', want: '/a/b' },
    { raw: 'a///b', want: '/a/b' },
    { raw: '/ünï', want: '/%C3%BCn%C3%AF' },
    { raw: '/e\u0301', want: '/%C3%A9' },
    { raw: '/a~b_c.d-e', want: '/a~b_c.d-e' },
    { raw: '///', want: /empty/ },
    { raw: '/a/./b', want: /dot segments/ },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.raw), () => {
      const got = normalizeRoutePath(c.raw);
      if (typeof c.want === 'string') assert.deepEqual(got, { ok: true, path: c.want });
      else {
        assert.equal(got.ok, false);
        if (!got.ok) assert.match(got.message, c.want);
      }
    });
  }
});
