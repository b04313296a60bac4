// The aim.eai.amd.com CRDs on the test cluster (embedded or real API server): installed, Established, and
// accepting every YAML example of the AIM design (examples/aim/, and its partial snippets in test/apis/fixtures/aim-design-fragments.yaml) exactly as printed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { raw, startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { parse, parseAllDocuments } from 'yaml';
import { AIM_API_VERSION, aimCrds, MODEL_EXACTLY_ONE_MESSAGE } from '../../src/apis/aim/index.ts';
import { createCrdAndWait } from './crd-helpers.ts';

// the design's full objects are examples/aim/ (each file's first line is a comment); its partial snippets
// are a fixture, split on `---` lines
const fullObjects = readdirSync('examples/aim')
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => readFileSync(`examples/aim/${f}`, 'utf8').replace(/^# .*\n/, ''));
const fragments = readFileSync('test/apis/fixtures/aim-design-fragments.yaml', 'utf8')
  .replace(/^(# .*\n)+/, '')
  .split(/^---\n/m);

const services = (ns: string) => `/apis/${AIM_API_VERSION}/namespaces/${ns}/aimservices`;
const nsConfigs = (ns: string) => `/apis/${AIM_API_VERSION}/namespaces/${ns}/aimruntimeconfigs`;
const clusterConfigs = `/apis/${AIM_API_VERSION}/aimclusterruntimeconfigs`;

function service(name: string, spec: Record<string, unknown>, labels?: Record<string, string>) {
  return { apiVersion: AIM_API_VERSION, kind: 'AIMService', metadata: { name, ...(labels ? { labels } : {}) }, spec };
}

describe('aim.eai.amd.com CRDs', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
    for (const crd of aimCrds()) await createCrdAndWait(cluster, crd);
    await cluster.k(['create', 'namespace', 'ml-team']);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('installs every kind Established, with the short names kubectl resolves', async () => {
    assert.deepEqual(
      aimCrds().map((c) => c.spec.names.kind),
      [
        'AIMClusterRuntimeConfig',
        'AIMRuntimeConfig',
        'AIMClusterModelSource',
        'AIMClusterModel',
        'AIMModel',
        'AIMClusterServiceTemplate',
        'AIMServiceTemplate',
        'AIMTemplateCache',
        'AIMArtifact',
        'AIMService',
      ],
    );
    for (const short of [
      'aimclrc',
      'aimrc',
      'aimclsrc',
      'aimclmdl',
      'aimmdl',
      'aimcltpl',
      'aimtpl',
      'aimtc',
      'aimart',
      'aimsvc',
    ]) {
      const r = await cluster.kubectl(['get', short, '-A']);
      assert.equal(r.code, 0, `${short}: ${r.stderr}`);
    }
  });

  it("finds the AIM design's examples (guards the extraction itself)", () => {
    assert.equal(fullObjects.length, 9);
    assert.equal(fragments.length, 5);
  });

  describe('every full YAML example of the AIM design applies unchanged', () => {
    fullObjects.forEach((yaml, i) => {
      const doc = parse(yaml) as { kind: string; metadata: { name: string; namespace?: string } };
      it(`example ${i + 1}: ${doc.kind} ${doc.metadata.namespace ?? ''}/${doc.metadata.name}`, async () => {
        await cluster.k(['apply', '-f', '-'], yaml);
        const live = JSON.parse(
          await cluster.k([
            'get',
            doc.kind,
            doc.metadata.name,
            ...(doc.metadata.namespace ? ['-n', doc.metadata.namespace] : []),
            '-o',
            'json',
          ]),
        );
        assertContains(live.spec, (parse(yaml) as { spec: unknown }).spec, `${doc.kind}/${doc.metadata.name}.spec`);
      });
    });
  });

  describe("the AIM design's fragments fit the schemas they illustrate", () => {
    const specFragments = fragments.filter((f) => /^spec:/m.test(f));
    specFragments.forEach((yaml, i) => {
      const spec = (parse(yaml) as { spec: Record<string, unknown> }).spec;
      it(`spec fragment ${i + 1} as an AIMService${spec.model ? '' : ' (with the design model added)'} and, without workload fields, as an AIMRuntimeConfig`, async () => {
        const svcSpec = spec.model ? spec : { model: { name: 'qwen-qwen3-32b' }, ...spec };
        const r = await raw(
          cluster,
          'POST',
          services('ml-team'),
          service(`fragment-${i}`, svcSpec, { project: 'conversational-ai' }),
        );
        assert.equal(r.status, 201, r.text);
        assertContains(r.json().spec, svcSpec, 'spec');
        if (!spec.model && !spec.runtimeConfigName) {
          const c = await raw(cluster, 'POST', nsConfigs('ml-team'), {
            apiVersion: AIM_API_VERSION,
            kind: 'AIMRuntimeConfig',
            metadata: { name: `fragment-${i}` },
            spec,
          });
          assert.equal(c.status, 201, c.text);
        }
      });
    });
    fragments
      .filter((f) => /^status:/m.test(f))
      .forEach((yaml, i) => {
        it(`status fragment ${i + 1} is accepted by the AIMService status subresource unchanged`, async () => {
          const status = (parse(yaml) as { status: Record<string, unknown> }).status;
          const created = await raw(
            cluster,
            'POST',
            services('ml-team'),
            service(`status-${i}`, { model: { name: 'qwen-qwen3-32b' } }),
          );
          assert.equal(created.status, 201, created.text);
          const r = await raw(
            cluster,
            'PATCH',
            `${services('ml-team')}/status-${i}/status`,
            { status },
            { contentType: 'application/merge-patch+json' },
          );
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(r.json().status.resolvedRuntimeConfig, status.resolvedRuntimeConfig);
        });
      });
  });

  describe('model: exactly one of name | image | custom (CEL)', () => {
    const custom = {
      baseImage: 'ghcr.io/amd/aim-base:1',
      modelSources: [{ name: 'm', sourceUri: 'hf://org/m' }],
      hardware: { gpu: { requests: 1 } },
    };
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['name', { name: 'qwen' }, true],
      ['ref (alias of name)', { ref: 'qwen' }, true],
      ['image', { image: 'ghcr.io/amd/qwen:1' }, true],
      ['custom', { custom }, true],
      ['nothing', {}, false],
      ['name and image', { name: 'qwen', image: 'ghcr.io/amd/qwen:1' }, false],
      ['name and custom', { name: 'qwen', custom }, false],
      ['image and custom', { image: 'ghcr.io/amd/qwen:1', custom }, false],
      ['name and ref', { name: 'qwen', ref: 'qwen' }, false],
    ];
    cases.forEach(([name, model, ok], i) => {
      it(`${ok ? 'accepts' : 'rejects'} ${name}`, async () => {
        const r = await raw(cluster, 'POST', services('default'), service(`model-${i}`, { model }));
        if (ok) {
          assert.equal(r.status, 201, r.text);
          return;
        }
        assert.equal(r.status, 422, r.text);
        assert.ok(r.json().message.includes(MODEL_EXACTLY_ONE_MESSAGE), r.json().message);
      });
    });
  });

  it('keeps explicit zero values (false, 0, "") through a round trip', async () => {
    const spec = {
      defaultStorageClassName: '',
      storage: { defaultStorageClassName: '', pvcHeadroomPercent: 0 },
      routing: { enabled: false, pathTemplate: '', annotations: {} },
      labelPropagation: { enabled: false, match: [] },
      env: [{ name: 'EMPTY', value: '' }],
    };
    for (const [path, kind, extra] of [
      [clusterConfigs, 'AIMClusterRuntimeConfig', {}],
      [nsConfigs('ml-team'), 'AIMRuntimeConfig', { serviceAccountName: '', imagePullSecrets: [] }],
    ] as const) {
      const created = await raw(cluster, 'POST', path, {
        apiVersion: AIM_API_VERSION,
        kind,
        metadata: { name: 'zeros' },
        spec: { ...spec, ...extra },
      });
      assert.equal(created.status, 201, created.text);
      const live = (await raw(cluster, 'GET', `${path}/zeros`)).json();
      assert.deepEqual(live.spec, { ...spec, ...extra }, kind);
    }
    const out = await cluster.k(['get', 'aimrc', '-n', 'ml-team', 'zeros']);
    assert.match(out, /^NAME\s+READY\s+AGE\nzeros\s/);
  });

  it('has no auth fields on the cluster kind: the server prunes them (namespace-only)', async () => {
    const r = await raw(cluster, 'POST', clusterConfigs, {
      apiVersion: AIM_API_VERSION,
      kind: 'AIMClusterRuntimeConfig',
      metadata: { name: 'with-auth' },
      spec: { serviceAccountName: 'sa', imagePullSecrets: [{ name: 'regcred' }], routing: { enabled: true } },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json().spec, { routing: { enabled: true } });
  });

  it('rejects malformed runtime-config fields naming the field', async () => {
    const r = await raw(cluster, 'POST', nsConfigs('ml-team'), {
      apiVersion: AIM_API_VERSION,
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'bad' },
      spec: {
        routing: { requestTimeout: 'soon', gatewayRef: { namespace: 'x' } },
        storage: { pvcHeadroomPercent: -1 },
      },
    });
    assert.equal(r.status, 422, r.text);
    for (const field of [
      'spec.routing.requestTimeout',
      'spec.routing.gatewayRef.name',
      'spec.storage.pvcHeadroomPercent',
    ])
      assert.match(r.text, new RegExp(field.replace(/\./g, '\\.')));
  });

  it('prints the AIMService status columns in kubectl get', async () => {
    const out = await cluster.k(['get', 'aimsvc', '-n', 'ml-team', 'status-0']);
    assert.match(out.split('\n')[0]!, /^NAME\s+STATUS\s+MODEL\s+TEMPLATE\s+PATH\s+AGE/);
  });
});

describe('modelplane crds', () => {
  it('prints every CRD as multi-document YAML', async () => {
    const out = await new Promise<string>((resolveOut, reject) => {
      const c = spawn(process.execPath, [resolve('bin/modelplane.js'), 'crds']);
      let s = '';
      c.stdout.on('data', (d) => (s += d));
      c.on('error', reject);
      c.on('exit', (code) => (code === 0 ? resolveOut(s) : reject(new Error(`modelplane crds exited ${code}`))));
    });
    const all = parseAllDocuments(out)
      .map((d) => d.toJS())
      .filter(Boolean);
    assert.ok(all.every((d) => d.kind === 'CustomResourceDefinition'));
    const docs = all.filter((d) => d.spec.group === 'aim.eai.amd.com');
    assert.equal(docs.length, 10);
    assert.deepEqual(
      docs.map((d) => d.spec.names.kind).sort(),
      [
        'AIMClusterRuntimeConfig',
        'AIMRuntimeConfig',
        'AIMClusterModelSource',
        'AIMClusterModel',
        'AIMModel',
        'AIMClusterServiceTemplate',
        'AIMServiceTemplate',
        'AIMTemplateCache',
        'AIMArtifact',
        'AIMService',
      ].sort(),
    );
    assert.deepEqual(docs, JSON.parse(JSON.stringify(aimCrds())));
  });
});

/** every field of `expected` is in `actual` with the same value (the server may add defaults around them) */
function assertContains(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(
      actual !== null && typeof actual === 'object',
      `${path}: expected an object, got ${JSON.stringify(actual)}`,
    );
    for (const [k, v] of Object.entries(expected))
      assertContains((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    return;
  }
  assert.deepEqual(actual, expected, path);
}
