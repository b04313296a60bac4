// `modelplane render`: the controllers' planners run offline over the input file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseAllDocuments } from 'yaml';
import { renderObjects } from '../../src/controllers/render.ts';

const docs = (...files: string[]) =>
  files.flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as KubeObject));
const model = (ns: string, name: string): KubeObject =>
  ({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMModel',
    metadata: { name, namespace: ns },
    spec: { image: 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5' },
  }) as KubeObject;

describe('renderObjects', () => {
  it('the AIM routing example (docs/aim.md): an InferenceService and an HTTPRoute on /ml/ml-team/conversational-ai', async () => {
    const [r] = await renderObjects(
      [
        ...docs('examples/aim/03-aimruntimeconfig-default.yaml', 'examples/aim/04-aimservice-qwen-chat.yaml'),
        model('ml-team', 'qwen-qwen3-32b'),
      ],
      { operatorNamespace: 'aim-system' },
    );
    assert.deepEqual(r!.problems, []);
    assert.deepEqual(r!.objects.map((o) => o.kind).sort(), ['HTTPRoute', 'InferenceService']);
    const route = r!.objects.find((o) => o.kind === 'HTTPRoute') as KubeObject & {
      spec: { rules: Array<{ matches: Array<{ path: { value: string } }> }> };
    };
    assert.equal(route.spec.rules[0]!.matches[0]!.path.value, '/ml/ml-team/conversational-ai');
    assert.equal(route.metadata.ownerReferences?.[0]?.kind, 'AIMService');
  });

  it('the cost-center labels of the AIM label-propagation example (docs/aim.md) reach both children', async () => {
    const svc = docs('examples/aim/07-aimservice-qwen-chat.yaml')[0]!;
    const [r] = await renderObjects(
      [...docs('examples/aim/06-aimclusterruntimeconfig-default.yaml'), svc, model('ml-team', 'qwen-qwen3-32b')],
      { operatorNamespace: 'aim-system' },
    );
    assert.ok(r!.objects.length >= 1);
    for (const o of r!.objects) assert.equal(o.metadata.labels?.['org.example/cost-center'], 'eng-ml', o.kind);
  });

  it('a missing model is reported as the controller would, and nothing depending on it is rendered', async () => {
    const [r] = await renderObjects(docs('examples/aim/04-aimservice-qwen-chat.yaml'), {
      operatorNamespace: 'aim-system',
    });
    assert.ok(
      r!.problems.some((p) => /spec\.model\.name: no AIMModel ml-team\/qwen-qwen3-32b/.test(p)),
      r!.problems.join('\n'),
    );
    assert.ok(!r!.objects.some((o) => o.kind === 'InferenceService'));
  });

  it('the quickstart ModelDeployments go to KAITO, Dynamo and KubeRay', async () => {
    const out = await renderObjects(
      docs(
        'examples/quickstart/40-modeldeployment-cpu.yaml',
        'examples/quickstart/41-modeldeployment-1gpu.yaml',
        'examples/quickstart/42-modeldeployment-2gpu.yaml',
      ),
      { operatorNamespace: 'aim-system' },
    );
    assert.deepEqual(
      out.map((r) => r.objects.map((o) => o.kind).join()),
      ['Workspace', 'DynamoGraphDeployment', 'RayService'],
    );
    for (const r of out) assert.equal(r.objects[0]!.metadata.labels?.['kubeairunway.ai/managed-by'], 'kubeairunway');
  });

  it('amd.com/gpu → an AIMService, itself rendered into its AIMModel (by image) and an InferenceService', async () => {
    const md = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'amd', namespace: 'ns' },
      spec: {
        model: { id: 'Qwen/Qwen3-8B' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
      },
    } as KubeObject;
    const out = await renderObjects([md], { operatorNamespace: 'aim-system' });
    assert.deepEqual(
      out.map((r) => r.objects.map((o) => o.kind).join()),
      ['AIMService', 'AIMModel,InferenceService'],
    );
  });

  it('an invalid ModelDeployment gives the webhook message instead of objects', async () => {
    const md = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'bad', namespace: 'ns' },
      spec: { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 0 } } },
    } as KubeObject;
    const [r] = await renderObjects([md], { operatorNamespace: 'aim-system' });
    assert.deepEqual(r!.objects, []);
    assert.deepEqual(r!.problems, ['Validated: vLLM engine requires GPU (set resources.gpu.count > 0)']);
  });
});

describe('renderObjects: LlamaStackDistribution', () => {
  it('the full example: the generated ConfigMap, the Deployment mounting it and every optional child', async () => {
    const [out] = await renderObjects(docs('examples/llamastack/full-v1alpha2.yaml'), {
      operatorNamespace: 'modelplane-system',
    });
    assert.deepEqual(out!.problems, []);
    const kinds = out!.objects.map((o) => o.kind).sort();
    assert.deepEqual(kinds, [
      'ConfigMap',
      'Deployment',
      'Ingress',
      'NetworkPolicy',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'Service',
      'ServiceAccount',
    ]);
    const cm = out!.objects.find((o) => o.kind === 'ConfigMap') as KubeObject & { data: Record<string, string> };
    assert.match(cm.metadata.name!, /^full-config-[0-9a-f]{8}$/);
    assert.match(cm.data['config.yaml']!, /provider_id: vllm-primary/);
    const d = out!.objects.find((o) => o.kind === 'Deployment') as any;
    assert.equal(
      d.spec.template.spec.volumes.find((v: any) => v.name === 'user-config').configMap.name,
      cm.metadata.name,
    );
  });

  it('the quickstart one: the endpoint of its ModelDeployment is assumed offline, and says so', async () => {
    const [out] = await renderObjects(docs('examples/quickstart/50-llamastack-distribution.yaml'), {
      operatorNamespace: 'modelplane-system',
    });
    assert.match(
      out!.problems[0]!,
      /ModelDeployment gemma-cpu reports no endpoint offline; assumed http:\/\/gemma-cpu.quickstart.svc.cluster.local\/v1/,
    );
    assert.ok(out!.objects.some((o) => o.kind === 'Deployment'));
  });

  it("a v1alpha1 object is rendered through the conversion, and a missing Secret is the controller's message", async () => {
    const v1 = {
      apiVersion: 'llamastack.io/v1alpha1',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'old', namespace: 'x' },
      spec: { server: { distribution: { name: 'starter' } } },
    } as KubeObject;
    const [a] = await renderObjects([v1], { operatorNamespace: 'modelplane-system' });
    assert.ok(a!.objects.some((o) => o.kind === 'Deployment'));
    const v2 = {
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'n', namespace: 'x' },
      spec: {
        distribution: { name: 'starter' },
        providers: { inference: [{ provider: 'vllm', apiKey: { name: 'gone', key: 'k' } }] },
      },
    } as KubeObject;
    const [b] = await renderObjects([v2], { operatorNamespace: 'modelplane-system' });
    assert.deepEqual(b!.problems, [
      'SecretsResolved: SecretNotFound: Secret "gone" not found in namespace "x". Referenced by: spec.providers.inference[0].apiKey',
    ]);
    assert.deepEqual(b!.objects, []);
  });
});

describe('modelplane render (command)', () => {
  it('prints YAML for a folder and exits 0; exits 1 when nothing could be rendered for a resource', () => {
    const ok = spawnSync(process.execPath, [resolve('bin/modelplane.js'), 'render', '-f', 'examples/quickstart'], {
      encoding: 'utf8',
    });
    assert.equal(ok.status, 0, ok.stderr);
    const kinds = parseAllDocuments(ok.stdout).map((d) => (d.toJS() as KubeObject).kind);
    // AIMModel: auto-created for the AIMService by image; the llm-d provider's Deployment, Service and
    // InferencePool (twice: qwen-llmd, and qwen-cached after its managed PVC and download Job) beside Llama
    // Stack's; both AIMServices' InferenceService and HTTPRoute
    assert.deepEqual(kinds.sort(), [
      'AIMModel',
      'ConfigMap',
      'Deployment',
      'Deployment',
      'Deployment',
      'DynamoGraphDeployment',
      'HTTPRoute',
      'HTTPRoute',
      'InferencePool',
      'InferencePool',
      'InferenceService',
      'InferenceService',
      'Job',
      'PersistentVolumeClaim',
      'RayService',
      'Service',
      'Service',
      'Service',
      'ServiceAccount',
      'Workspace',
    ]);
    const bad = spawnSync(process.execPath, [resolve('bin/modelplane.js'), 'render', '-f', '-'], {
      encoding: 'utf8',
      input:
        'apiVersion: kubeairunway.ai/v1alpha1\nkind: ModelDeployment\nmetadata: {name: x, namespace: y}\nspec: {model: {id: m}}\n',
    });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /ModelDeployment y\/x: Validated: engine\.type is required/);
  });
});
