// The runtime configs' static validation (pure): every kind of bad input names its field and cause, the
// design's examples are valid, deprecated spellings say which value wins, and the escaped form suggested
// for a dotted bracket key is what the real kubectl resolves.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { KUBECTL, runKubectl } from '@modelplane/apiserver/testing';
import { parse } from 'yaml';
import type { RuntimeConfigSpec } from '../../../src/common/runtime-config/index.ts';
import {
  gatewayCheckFor,
  type NamespaceAuthFields,
  REASON,
  validateRuntimeConfigSpec,
} from '../../../src/controllers/aim/runtime-config/index.ts';

const TEMPLATE = 'spec.routing.pathTemplate';

interface BadCase {
  name: string;
  spec: RuntimeConfigSpec & NamespaceAuthFields;
  field: string;
  reason: string;
  cause: RegExp;
}

const bad: BadCase[] = [
  // path templates: JSONPath injection and syntax
  {
    name: 'unbalanced {',
    spec: { routing: { pathTemplate: '/{.metadata.name' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /unbalanced "\{"/,
  },
  {
    name: 'stray }',
    spec: { routing: { pathTemplate: '/a}/{.metadata.name}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /unbalanced "\}"/,
  },
  {
    name: 'nested { }',
    spec: { routing: { pathTemplate: '/{.metadata.{.name}}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /unbalanced|cannot nest/,
  },
  {
    name: 'injected }{ closing one placeholder and opening another',
    spec: { routing: { pathTemplate: '/{.metadata.name}{range .items[*]}{.x}{end}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /not allowed|not one expression/,
  },
  {
    name: 'recursive descent ..',
    spec: { routing: { pathTemplate: '/{..name}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /recursive descent/,
  },
  {
    name: '?() filter',
    spec: { routing: { pathTemplate: "/{.status.conditions[?(@.type=='Ready')].status}" } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /filters/,
  },
  {
    name: 'wildcard',
    spec: { routing: { pathTemplate: '/{.metadata.labels.*}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /wildcards/,
  },
  {
    name: 'union',
    spec: { routing: { pathTemplate: "/{.metadata['name','namespace']}" } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /unions/,
  },
  {
    name: 'empty placeholder',
    spec: { routing: { pathTemplate: '/x/{}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /empty placeholder/,
  },
  {
    name: 'very long key',
    spec: { routing: { pathTemplate: `/{.metadata.labels.${'k'.repeat(300)}}` } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /more than the maximum of 256/,
  },
  {
    name: 'pathologically long template',
    spec: { routing: { pathTemplate: `/${'a'.repeat(20_000)}` } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /more than the maximum of 16384/,
  },
  {
    name: 'literal text longer than a path may be',
    spec: { routing: { pathTemplate: `/${'a'.repeat(250)}/{.metadata.name}` } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /literal text alone renders 251 characters after encoding, more than the maximum of 200/,
  },
  {
    name: 'literal text too long once percent-encoded',
    spec: { routing: { pathTemplate: `/{.metadata.name}/${'é'.repeat(40)}` } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /renders 241 characters after encoding/,
  },
  {
    name: 'invalid jsonpath',
    spec: { routing: { pathTemplate: '/{.metadata.labels[}' } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /unbalanced|invalid/,
  },
  {
    name: 'bracketed key with an unescaped dot',
    spec: { routing: { pathTemplate: "/{.metadata.labels['org.example/team']}" } },
    field: TEMPLATE,
    reason: REASON.PathTemplateInvalid,
    cause: /\['org\.example\/team'\] contains a dot.*write \{.*org\\\.example\/team\} instead/,
  },
  // label patterns
  {
    name: 'two slashes',
    spec: { labelPropagation: { enabled: true, match: ['org.example/team', 'a/b/c'] } },
    field: 'spec.labelPropagation.match[1]',
    reason: REASON.InvalidLabelPattern,
    cause: /"a\/b\/c".*at most one "\/"/,
  },
  {
    name: 'empty prefix',
    spec: { labelPropagation: { match: ['/team'] } },
    field: 'spec.labelPropagation.match[0]',
    reason: REASON.InvalidLabelPattern,
    cause: /prefix part must not be empty/,
  },
  {
    name: 'illegal characters',
    spec: { labelPropagation: { match: ['ok', 'ok2', 'team name!'] } },
    field: 'spec.labelPropagation.match[2]',
    reason: REASON.InvalidLabelPattern,
    cause: /may contain only/,
  },
  {
    name: 'regex metacharacters',
    spec: { labelPropagation: { match: ['(a+)+$'] } },
    field: 'spec.labelPropagation.match[0]',
    reason: REASON.InvalidLabelPattern,
    cause: /may contain only/,
  },
  {
    name: 'name part too long',
    spec: { labelPropagation: { match: [`x/${'n'.repeat(64)}`] } },
    field: 'spec.labelPropagation.match[0]',
    reason: REASON.InvalidLabelPattern,
    cause: /longer than 63/,
  },
  // env
  {
    name: 'env name starting with a digit',
    spec: { env: [{ name: '1BAD', value: 'x' }] },
    field: 'spec.env[0].name',
    reason: REASON.InvalidEnvVar,
    cause: /"1BAD"/,
  },
  {
    name: 'env name with a space',
    spec: {
      env: [
        { name: 'A', value: '1' },
        { name: 'MY VAR', value: 'x' },
      ],
    },
    field: 'spec.env[1].name',
    reason: REASON.InvalidEnvVar,
    cause: /"MY VAR"/,
  },
  {
    name: 'duplicate env name',
    spec: {
      env: [
        { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' },
        { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'XET' },
      ],
    },
    field: 'spec.env[1].name',
    reason: REASON.InvalidEnvVar,
    cause: /Duplicate.*spec\.env\[0\]/,
  },
  {
    name: 'value and valueFrom',
    spec: { env: [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] },
    field: 'spec.env[0].valueFrom',
    reason: REASON.InvalidEnvVar,
    cause: /may not be specified/,
  },
  // request timeouts the HTTPRoute would reject
  {
    name: 'fractional timeout',
    spec: { routing: { requestTimeout: '1.5s' } },
    field: 'spec.routing.requestTimeout',
    reason: REASON.InvalidRequestTimeout,
    cause: /"1\.5s" is not a Gateway API duration/,
  },
  {
    name: 'microsecond timeout',
    spec: { routing: { requestTimeout: '100us' } },
    field: 'spec.routing.requestTimeout',
    reason: REASON.InvalidRequestTimeout,
    cause: /not a Gateway API duration/,
  },
  {
    name: 'six-digit timeout',
    spec: { routing: { requestTimeout: '123456s' } },
    field: 'spec.routing.requestTimeout',
    reason: REASON.InvalidRequestTimeout,
    cause: /up to 5 digits/,
  },
  {
    name: 'five-part timeout',
    spec: { routing: { requestTimeout: '1h1m1s1ms1s' } },
    field: 'spec.routing.requestTimeout',
    reason: REASON.InvalidRequestTimeout,
    cause: /1 to 4 parts/,
  },
  {
    name: 'timeout without unit',
    spec: { routing: { requestTimeout: '30' } },
    field: 'spec.routing.requestTimeout',
    reason: REASON.InvalidRequestTimeout,
    cause: /not a Gateway API duration/,
  },
  // gateway refs and annotations the HTTPRoute would be rejected for
  {
    name: 'gateway name with capitals',
    spec: { routing: { enabled: true, gatewayRef: { name: 'Inference_GW' } } },
    field: 'spec.routing.gatewayRef.name',
    reason: REASON.InvalidGatewayRef,
    cause: /"Inference_GW" is not a valid object name/,
  },
  {
    name: 'gateway namespace too long',
    spec: { routing: { gatewayRef: { name: 'gw', namespace: 'n'.repeat(64) } } },
    field: 'spec.routing.gatewayRef.namespace',
    reason: REASON.InvalidGatewayRef,
    cause: /not a valid namespace/,
  },
  {
    name: 'annotation key with a space',
    spec: { routing: { annotations: { 'bad key': 'x' } } },
    field: 'spec.routing.annotations["bad key"]',
    reason: REASON.InvalidAnnotation,
    cause: /key name "bad key"/,
  },
  {
    name: 'image pull secret name',
    spec: { imagePullSecrets: [{ name: 'ok' }, { name: 'Registry Creds' }] },
    field: 'spec.imagePullSecrets[1].name',
    reason: REASON.InvalidObjectName,
    cause: /"Registry Creds" is not a valid Secret name/,
  },
  {
    name: 'service account name',
    spec: { serviceAccountName: 'aim_runner' },
    field: 'spec.serviceAccountName',
    reason: REASON.InvalidObjectName,
    cause: /"aim_runner" is not a valid ServiceAccount name/,
  },
  {
    name: 'annotation prefix with capitals',
    spec: { routing: { annotations: { 'Example.COM/x': 'y' } } },
    field: 'spec.routing.annotations["Example.COM/x"]',
    reason: REASON.InvalidAnnotation,
    cause: /prefix "Example\.COM"/,
  },
];

describe('runtime config validation: bad input names the field and the cause', () => {
  for (const c of bad) {
    it(c.name, () => {
      const { errors } = validateRuntimeConfigSpec(c.spec);
      const hit = errors.find((e) => e.field === c.field);
      assert.ok(hit, `no error for ${c.field}; got ${JSON.stringify(errors)}`);
      assert.equal(hit.reason, c.reason);
      assert.ok(hit.message.startsWith(`${c.field}: `), hit.message);
      assert.match(hit.message, c.cause);
    });
  }

  it('reports every problem of a config at once', () => {
    const { errors } = validateRuntimeConfigSpec({
      routing: { pathTemplate: '/{..x}', requestTimeout: '1.5s' },
      labelPropagation: { match: ['a/b/c'] },
      env: [{ name: '1X' }],
    });
    assert.deepEqual(errors.map((e) => e.field).sort(), [
      'spec.env[0].name',
      'spec.labelPropagation.match[0]',
      'spec.routing.pathTemplate',
      'spec.routing.requestTimeout',
    ]);
  });
});

describe('runtime config validation: valid input', () => {
  const good: { name: string; spec: RuntimeConfigSpec | undefined }[] = [
    { name: 'no spec at all', spec: undefined },
    { name: 'empty spec', spec: {} },
    { name: 'empty template means the default path', spec: { routing: { pathTemplate: '' } } },
    {
      name: 'escaped dots outside brackets',
      spec: { routing: { pathTemplate: '/{.metadata.labels.org\\.example/team}/{.metadata.name}' } },
    },
    {
      name: 'long literal text that still fits',
      spec: { routing: { pathTemplate: `/${'a'.repeat(150)}//{.metadata.name}/` } },
    },
    { name: 'index into a list', spec: { routing: { pathTemplate: '/{.spec.containers[0].name}' } } },
    { name: 'timeouts', spec: { routing: { requestTimeout: '1h2m3s4ms' } } },
    { name: 'zero timeout (disables it, per Gateway API)', spec: { routing: { requestTimeout: '0s' } } },
    {
      name: 'wildcard patterns',
      spec: { labelPropagation: { enabled: true, match: ['compliance.*/severity', 'org.example/*', 'team-*'] } },
    },
    {
      name: 'env with valueFrom',
      spec: {
        env: [
          { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } } },
          { name: 'a.b-c_d', value: '' },
        ],
      },
    },
    {
      name: 'qualified annotation keys',
      spec: { routing: { annotations: { 'gateway.example.com/rate-limit': '100', simple: 'x' } } },
    },
    {
      name: 'a non-Gateway parent',
      spec: { routing: { enabled: true, gatewayRef: { name: 'mesh', group: '', kind: 'Service' } } },
    },
  ];
  for (const c of good) {
    it(c.name, () => assert.deepEqual(validateRuntimeConfigSpec(c.spec).errors, []));
  }

  it('every runtime config example of docs/aim.md (examples/aim) is valid', () => {
    const files = readdirSync('examples/aim').filter((f) => f.endsWith('.yaml'));
    let configs = 0;
    for (const f of files) {
      const doc = parse(readFileSync(`examples/aim/${f}`, 'utf8')) as { kind: string; spec?: RuntimeConfigSpec };
      if (!doc.kind.endsWith('RuntimeConfig')) continue;
      configs++;
      assert.deepEqual(validateRuntimeConfigSpec(doc.spec).errors, [], f);
    }
    assert.equal(configs, 7, 'docs/aim.md has seven runtime config examples');
  });
});

describe('runtime config validation: deprecated top-level storage fields', () => {
  const cases: { name: string; spec: RuntimeConfigSpec; reason: string; message: RegExp }[] = [
    {
      name: 'only the old field: used as the new one',
      spec: { defaultStorageClassName: 'team-ssd' },
      reason: REASON.DeprecatedField,
      message:
        /^spec\.defaultStorageClassName: deprecated; its value "team-ssd" is used as spec\.storage\.defaultStorageClassName/,
    },
    {
      name: 'both, same value',
      spec: { defaultStorageClassName: 'a', storage: { defaultStorageClassName: 'a' } },
      reason: REASON.DeprecatedField,
      message: /repeats spec\.storage\.defaultStorageClassName \("a"\); remove it/,
    },
    {
      name: 'both, different values: storage.* wins',
      spec: { pvcHeadroomPercent: 10, storage: { pvcHeadroomPercent: 25 } },
      reason: REASON.DeprecatedFieldIgnored,
      message:
        /^spec\.pvcHeadroomPercent: deprecated and ignored: spec\.storage\.pvcHeadroomPercent \(25\) wins over 10/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = validateRuntimeConfigSpec(c.spec);
      assert.deepEqual(r.errors, [], 'a deprecated spelling is not an error');
      assert.equal(r.warnings.length, 1);
      assert.equal(r.warnings[0]!.reason, c.reason);
      assert.match(r.warnings[0]!.message, c.message);
    });
  }
  it('no note when only storage.* is used', () =>
    assert.deepEqual(
      validateRuntimeConfigSpec({ storage: { defaultStorageClassName: 'x', pvcHeadroomPercent: 0 } }).warnings,
      [],
    ));
});

describe('which Gateway a config checks', () => {
  const cases: {
    name: string;
    spec: RuntimeConfigSpec;
    scope: 'Namespace' | 'Cluster';
    ns?: string;
    want: ReturnType<typeof gatewayCheckFor>['kind'];
    where?: string;
    reason?: string;
  }[] = [
    { name: 'no routing', spec: {}, scope: 'Namespace', ns: 'a', want: 'none' },
    {
      name: 'routing disabled',
      spec: { routing: { enabled: false, gatewayRef: { name: 'gw', namespace: 'g' } } },
      scope: 'Namespace',
      ns: 'a',
      want: 'none',
    },
    {
      name: 'explicit namespace',
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw', namespace: 'g' } } },
      scope: 'Namespace',
      ns: 'a',
      want: 'check',
      where: 'g/gw',
    },
    {
      name: 'enabled unset (may be inherited): still checked',
      spec: { routing: { gatewayRef: { name: 'gw', namespace: 'g' } } },
      scope: 'Cluster',
      want: 'check',
      where: 'g/gw',
    },
    {
      name: "namespaced config: the config's namespace",
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw' } } },
      scope: 'Namespace',
      ns: 'team-a',
      want: 'check',
      where: 'team-a/gw',
    },
    {
      name: 'cluster config without namespace: not checkable',
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw' } } },
      scope: 'Cluster',
      want: 'unchecked',
      reason: 'GatewayNamespaceUnset',
    },
    {
      name: 'another parent kind',
      spec: {
        routing: {
          enabled: true,
          gatewayRef: { name: 'x', namespace: 'g', kind: 'ListenerSet', group: 'gateway.networking.x-k8s.io' },
        },
      },
      scope: 'Cluster',
      want: 'unchecked',
      reason: 'ParentNotAGateway',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = gatewayCheckFor(c.spec, c.scope, c.ns);
      assert.equal(got.kind, c.want, JSON.stringify(got));
      if (got.kind === 'check') assert.equal(`${got.namespace}/${got.name}`, c.where);
      if (got.kind === 'unchecked') assert.equal(got.reason, c.reason);
    });
  }
});

describe('dots in bracketed keys, as the real kubectl treats them', {
  skip: !existsSync(KUBECTL) && 'kubectl not extracted',
}, () => {
  const object = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n  namespace: ml-team\n  labels:\n    org.example/team: platform\n`;
  const kubectlJsonPath = async (expr: string) => {
    const r = await runKubectl(['label', '--local', '-f', '-', 'probe=1', '-o', `jsonpath=${expr}`], object);
    return r.code === 0 ? r.stdout : `error: ${r.stderr.trim()}`;
  };

  it("kubectl resolves ['org.example/team'] to nothing; the form our message suggests resolves to the label", async () => {
    const placeholder = "{.metadata.labels['org.example/team']}";
    assert.equal(await kubectlJsonPath(placeholder), '', 'the unescaped key is split on the dot and finds nothing');
    const [error] = validateRuntimeConfigSpec({ routing: { pathTemplate: `/teams/${placeholder}` } }).errors;
    assert.ok(error, 'the unescaped form is flagged');
    const suggested = /write (\{.*\}) instead/.exec(error.message)?.[1];
    assert.ok(suggested, error.message);
    assert.equal(await kubectlJsonPath(suggested), 'platform', `kubectl resolves the suggested ${suggested}`);
    assert.deepEqual(
      validateRuntimeConfigSpec({ routing: { pathTemplate: `/teams/${suggested}` } }).errors,
      [],
      'and the suggestion itself is accepted',
    );
  });

  it('the escaped bracket form also resolves with kubectl; double quotes do not parse', async () => {
    assert.equal(await kubectlJsonPath("{.metadata.labels['org\\.example/team']}"), 'platform');
    assert.match(await kubectlJsonPath('{.metadata.labels["org.example/team"]}'), /^error: .*invalid array index/);
  });
});
