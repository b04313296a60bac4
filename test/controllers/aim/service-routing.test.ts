// Route paths on the AIMService: docs/aim.md's rendering and the bad input. Every invalid template
// yields a Routing condition with reason PathTemplateInvalid naming the field and the cause, no HTTPRoute,
// and the InferenceService still planned; values needing encoding are encoded per segment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RuntimeConfigSpec } from '../../../src/common/runtime-config/index.ts';
import { desireService, planService, serviceHealth } from '../../../src/controllers/aim/service/index.ts';
import { type ComponentHealth, normalizeHealth } from '../../../src/engine/index.ts';
import { fetched, resolvedConfig, SEED_ROUTING, service } from './helpers/service-fixtures.ts';

const GATEWAY = { name: 'inference-gateway', namespace: 'gateways' };

interface Case {
  name: string;
  /** the template, from the service (inline) or the runtime config */
  template: string;
  from: 'service' | 'config';
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** the cause the message must carry */
  cause: RegExp;
}

const long = (n: number, ch = 'a') => ch.repeat(n);

const invalid: Case[] = [
  { name: 'a stray closing brace', template: '/x/}', from: 'service', cause: /unbalanced "\}"/ },
  { name: 'a stray opening brace', template: '/x/{', from: 'config', cause: /unbalanced "\{"/ },
  {
    name: 'an injection attempt: }{ between placeholders',
    template: '/{.metadata.name}}{.metadata.uid}',
    from: 'service',
    cause: /unbalanced/,
  },
  {
    name: 'recursive descent ..',
    template: '/{..name}',
    from: 'config',
    cause: /recursive descent \.\. is not allowed/,
  },
  {
    name: 'a filter ?()',
    template: "/{.metadata.labels[?(@.team=='a')]}",
    from: 'service',
    cause: /filter|not allowed/,
  },
  { name: 'a wildcard', template: '/{.metadata.labels.*}', from: 'config', cause: /wildcards \* are not allowed/ },
  {
    name: 'a range block',
    template: '/{range .items}x{end}',
    from: 'service',
    cause: /not allowed|not one expression|invalid jsonpath/,
  },
  {
    name: 'a very long key',
    template: `/{.metadata.labels.${long(300)}}`,
    from: 'config',
    cause: /more than the maximum of 256/,
  },
  {
    name: 'a template whose path is over 200 characters',
    template: `/${long(1100)}`,
    from: 'service',
    cause: /1101 characters after encoding, more than the maximum of 200/,
  },
  { name: 'an empty placeholder', template: '/x/{}', from: 'config', cause: /empty placeholder/ },
  {
    name: 'docs/aim.md example without the label it needs',
    template: "/ml/{.metadata.namespace}/{.metadata.labels['project']}",
    from: 'config',
    labels: {},
    cause: /labels\['project'\]\}.*(returned no results|not found)/,
  },
  {
    name: 'a bracketed key with an unescaped dot',
    template: "/{.metadata.labels['org.example/team']}",
    from: 'config',
    cause: /contains a dot.*write \{\.metadata\.labels\.org\\\.example\/team\}/,
  },
  {
    name: 'a field that is an object, not a value',
    template: '/{.spec.model}',
    from: 'service',
    cause: /not a string, number or boolean/,
  },
  {
    name: 'a 300-character result',
    template: '/{.metadata.annotations.long}',
    from: 'service',
    annotations: { long: long(300, 'b') },
    cause: /more than the maximum of 200/,
  },
  {
    name: 'a value that is a dot segment',
    template: '/{.metadata.labels.team}',
    from: 'config',
    labels: { team: '..' },
    cause: /dot segments/,
  },
  { name: 'a template rendering to nothing', template: '///', from: 'service', cause: /empty/ },
  {
    name: 'an invalid JSONPath expression',
    template: '/{.metadata.labels[}',
    from: 'config',
    cause: /invalid jsonpath|unbalanced/,
  },
];

function run(c: {
  template: string;
  from: 'service' | 'config';
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}) {
  const routing = { enabled: true, gatewayRef: GATEWAY, ...(c.from === 'config' ? { pathTemplate: c.template } : {}) };
  const svc = service({
    metadata: {
      labels: c.labels ?? { project: 'conversational-ai' },
      ...(c.annotations ? { annotations: c.annotations } : {}),
    },
    spec: {
      model: { name: 'qwen-qwen3-32b' },
      ...(c.from === 'service' ? { routing: { pathTemplate: c.template } } : {}),
    },
  });
  const rc = resolvedConfig({ namespace: { routing } as RuntimeConfigSpec });
  const obs = desireService(svc, rc, fetched(svc));
  const plan = planService(svc, obs);
  const health = serviceHealth(obs, rc)
    .filter((h): h is ComponentHealth => Boolean(h))
    .map(normalizeHealth);
  return { obs, plan, health };
}

describe('PathTemplateInvalid: field, cause, no HTTPRoute, InferenceService kept', () => {
  for (const c of invalid) {
    it(c.name, () => {
      let out: ReturnType<typeof run> | undefined;
      assert.doesNotThrow(() => {
        out = run(c);
      });
      const { obs, plan, health } = out!;
      const routing = obs.desired?.routing;
      assert.equal(routing?.kind, 'invalid', `routing: ${JSON.stringify(routing)}`);
      if (routing?.kind !== 'invalid') return;
      assert.equal(routing.reason, 'PathTemplateInvalid');
      const field =
        c.from === 'service'
          ? 'spec.routing.pathTemplate'
          : 'spec.routing.pathTemplate of AIMRuntimeConfig ml-team/default';
      assert.equal(routing.field, field);
      assert.ok(routing.message.startsWith(`${field}: `), routing.message);
      assert.match(routing.message, c.cause);
      assert.deepEqual(
        plan.applies.map((a) => a.object.kind),
        ['InferenceService'],
        'only the InferenceService is applied',
      );
      const r = health.find((h) => h.component === 'Routing');
      assert.equal(r?.state, 'Degraded');
      assert.equal(r?.reason, 'PathTemplateInvalid');
      assert.equal(r?.errors.length, 0, 'reported without a blocking error, so the InferenceService is still applied');
      assert.ok(r?.message.includes(field), r?.message);
      assert.equal(
        health.find((h) => h.component === 'HTTPRoute'),
        undefined,
        'no route, nothing to report about one',
      );
    });
  }
});

describe('values needing encoding become one RFC 3986-encoded, lowercased segment each', () => {
  const cases: Array<{ name: string; value: string; path: string }> = [
    { name: 'spaces', value: 'Data Science', path: '/t/data%20science' },
    { name: 'a slash splits segments', value: 'Team-A/B', path: '/t/team-a/b' },
    { name: 'a percent sign', value: '100%', path: '/t/100%25' },
    { name: 'Unicode (NFC, UTF-8 bytes)', value: 'Équipe-Ü', path: '/t/%C3%A9quipe-%C3%BC' },
    { name: 'query and fragment characters cannot escape the segment', value: 'a?b=c#d', path: '/t/a%3Fb%3Dc%23d' },
    { name: 'doubled slashes collapse', value: 'x//y/', path: '/t/x/y' },
  ];
  for (const from of ['labels', 'annotations'] as const) {
    for (const c of cases) {
      it(`${from}: ${c.name}`, () => {
        const template = `/t/{.metadata.${from}.team}`;
        const { obs, plan } = run({
          template,
          from: 'service',
          ...(from === 'labels' ? { labels: { team: c.value } } : { annotations: { team: c.value } }),
        });
        assert.equal(obs.desired?.routing.kind, 'route', JSON.stringify(obs.desired?.routing));
        const route = plan.applies.find((a) => a.object.kind === 'HTTPRoute')?.object as unknown as {
          spec: { rules: Array<{ matches: Array<{ path: { value: string } }> }> };
        };
        assert.equal(route.spec.rules[0]!.matches[0]!.path.value, c.path);
      });
    }
  }

  it('exactly 200 characters is allowed, 201 is not', () => {
    const ok = run({ template: '/{.metadata.annotations.v}', from: 'service', annotations: { v: long(199, 'c') } });
    assert.equal(ok.obs.desired?.routing.kind, 'route');
    const tooLong = run({
      template: '/{.metadata.annotations.v}',
      from: 'service',
      annotations: { v: long(200, 'c') },
    });
    assert.equal(tooLong.obs.desired?.routing.kind, 'invalid');
  });
});

describe('other routing problems name their field', () => {
  const cases: Array<{ name: string; config: object; inline?: object; reason: string; message: RegExp }> = [
    {
      name: 'routing enabled without a gatewayRef',
      config: { enabled: true },
      reason: 'GatewayNotConfigured',
      message: /spec\.routing\.gatewayRef.*AIMRuntimeConfig ml-team\/default names a gateway/,
    },
    {
      name: 'a requestTimeout Gateway API cannot take (fraction)',
      config: { ...SEED_ROUTING.routing, requestTimeout: '1.5s' },
      reason: 'InvalidRequestTimeout',
      message:
        /spec\.routing\.requestTimeout of AIMRuntimeConfig ml-team\/default: "1\.5s" is not a Gateway API duration/,
    },
    {
      name: 'an inline requestTimeout with a unit Gateway API lacks',
      config: SEED_ROUTING.routing!,
      inline: { requestTimeout: '500us' },
      reason: 'InvalidRequestTimeout',
      message: /^spec\.routing\.requestTimeout: "500us"/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const svc = service({ spec: { model: { name: 'qwen-qwen3-32b' }, ...(c.inline ? { routing: c.inline } : {}) } });
      const rc = resolvedConfig({ namespace: { routing: c.config } as RuntimeConfigSpec });
      const obs = desireService(svc, rc, fetched(svc));
      const routing = obs.desired?.routing;
      assert.equal(routing?.kind, 'invalid');
      if (routing?.kind !== 'invalid') return;
      assert.equal(routing.reason, c.reason);
      assert.match(routing.message, c.message);
      assert.deepEqual(
        planService(svc, obs).applies.map((a) => a.object.kind),
        ['InferenceService'],
      );
    });
  }
});
