// spec.provider.overrides: privileged pod fields refused anywhere (naming the path), reserved top-level keys
// refused, docs/kubeairunway.md's documented overrides type-checked per provider, unknown keys warned about.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  admissionMessage,
  defaultModelDeployment,
  PRIVILEGED_OVERRIDE_KEYS,
  validateModelDeployment,
  validateProviderOverrides,
} from '../../../src/controllers/kubeairunway/validation/index.ts';

const md = (provider: { name?: string; overrides?: Record<string, unknown> }): ModelDeployment =>
  defaultModelDeployment({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'my-llm' },
    spec: { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } }, provider },
  });

describe('privileged pod fields in overrides are refused wherever they are', () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['securityContext at the top', { securityContext: { runAsUser: 0 } }, 'spec.provider.overrides.securityContext', 'securityContext'],
    [
      'privileged deep in a DGD service',
      { spec: { services: { VllmWorker: { extraPodSpec: { mainContainer: { securityContext: { privileged: true } } } } } } },
      'spec.provider.overrides.spec.services.VllmWorker.extraPodSpec.mainContainer.securityContext',
      'securityContext',
    ],
    ['privileged on its own', { head: { template: { privileged: true } } }, 'spec.provider.overrides.head.template.privileged', 'privileged'],
    ['hostNetwork', { spec: { hostNetwork: true } }, 'spec.provider.overrides.spec.hostNetwork', 'hostNetwork'],
    ['hostPID', { spec: { template: { spec: { hostPID: true } } } }, 'spec.provider.overrides.spec.template.spec.hostPID', 'hostPID'],
    ['hostIPC', { spec: { hostIPC: true } }, 'spec.provider.overrides.spec.hostIPC', 'hostIPC'],
    ['serviceAccountName', { head: { serviceAccountName: 'cluster-admin-sa' } }, 'spec.provider.overrides.head.serviceAccountName', 'serviceAccountName'],
    ['automountServiceAccountToken', { spec: { automountServiceAccountToken: true } }, 'spec.provider.overrides.spec.automountServiceAccountToken', 'automountServiceAccountToken'],
    ['a hostPath volume inside a list', { spec: { volumes: [{ name: 'ok', emptyDir: {} }, { name: 'root', hostPath: { path: '/' } }] } }, 'spec.provider.overrides.spec.volumes[1].hostPath', 'hostPath'],
    ['a hostPort in a container port list', { spec: { containers: [{ ports: [{ containerPort: 80, hostPort: 80 }] }] } }, 'spec.provider.overrides.spec.containers[0].ports[0].hostPort', 'hostPort'],
    ['nodeName', { spec: { nodeName: 'control-plane' } }, 'spec.provider.overrides.spec.nodeName', 'nodeName'],
  ];
  for (const [name, overrides, path, key] of cases) {
    for (const provider of [undefined, 'dynamo', 'kuberay', 'kaito', 'aim', 'third-party']) {
      it(`${name} (provider ${provider ?? 'not chosen yet'})`, () => {
        const { errors } = validateModelDeployment(md({ ...(provider ? { name: provider } : {}), overrides }));
        const message = `${path}: overriding "${key}" is not allowed for security reasons`;
        assert.deepEqual(errors, [{ field: path, message }]);
        assert.equal(admissionMessage(errors), message);
      });
    }
  }

  it('reports every privileged key, not just the first', () => {
    const { errors } = validateProviderOverrides(undefined, { spec: { hostNetwork: true, hostPID: true, template: { spec: { securityContext: {} } } } });
    assert.deepEqual(errors.map((e) => e.field), ['spec.provider.overrides.spec.hostNetwork', 'spec.provider.overrides.spec.hostPID', 'spec.provider.overrides.spec.template.spec.securityContext']);
  });

  it('covers at least the fields docs/kubeairunway.md and the issue name', () => {
    for (const k of ['securityContext', 'hostNetwork', 'hostPID', 'privileged', 'serviceAccountName', 'hostPath']) assert.ok(PRIVILEGED_OVERRIDE_KEYS.has(k), k);
  });

  it('does not mistake values for keys', () => {
    assert.deepEqual(validateProviderOverrides('dynamo', { spec: { note: 'hostNetwork', labels: ['privileged'] } }).errors, []);
  });
});

describe('reserved top-level keys', () => {
  for (const key of ['apiVersion', 'kind', 'metadata', 'status']) {
    it(key, () => {
      const { errors } = validateProviderOverrides('dynamo', { [key]: key === 'metadata' || key === 'status' ? {} : 'x' });
      assert.deepEqual(errors, [
        { field: `spec.provider.overrides.${key}`, message: `spec.provider.overrides.${key}: overriding "${key}" is not allowed (the controller owns the resource's identity and status)` },
      ]);
    });
  }
});

describe("docs/kubeairunway.md's documented overrides, per provider", () => {
  it('accepts docs/kubeairunway.md\'s Dynamo and KubeRay examples without a warning', () => {
    const dynamo = { routerMode: 'kv', frontend: { replicas: 2, resources: { cpu: '4', memory: '8Gi' } } };
    const kuberay = { head: { resources: { cpu: '4', memory: '8Gi' }, rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '0' } } };
    assert.deepEqual(validateModelDeployment(md({ name: 'dynamo', overrides: dynamo })), { errors: [], warnings: [] });
    assert.deepEqual(validateModelDeployment(md({ name: 'kuberay', overrides: kuberay })), { errors: [], warnings: [] });
    for (const mode of ['kv', 'round-robin', 'none']) assert.deepEqual(validateProviderOverrides('dynamo', { routerMode: mode }).errors, []);
    assert.deepEqual(validateProviderOverrides('dynamo', { spec: { services: { VllmWorker: { multinode: { nodeCount: 2 } } } } }), { errors: [], warnings: [] });
  });

  const wrongTypes: Array<[string, string, Record<string, unknown>, string, string]> = [
    ['dynamo', 'routerMode not in the enum', { routerMode: 'fastest' }, 'spec.provider.overrides.routerMode', 'spec.provider.overrides.routerMode: must be one of "kv", "round-robin", "none", got "fastest"'],
    ['dynamo', 'frontend.replicas a string', { frontend: { replicas: 'two' } }, 'spec.provider.overrides.frontend.replicas', 'spec.provider.overrides.frontend.replicas: must be an integer >= 0, got "two"'],
    ['dynamo', 'frontend.replicas negative', { frontend: { replicas: -1 } }, 'spec.provider.overrides.frontend.replicas', 'spec.provider.overrides.frontend.replicas: must be an integer >= 0, got -1'],
    ['dynamo', 'frontend.resources.memory not a quantity', { frontend: { resources: { memory: '8 gigs' } } }, 'spec.provider.overrides.frontend.resources.memory', 'spec.provider.overrides.frontend.resources.memory: must be a resource quantity such as "4" or "8Gi", got "8 gigs"'],
    ['dynamo', 'frontend a list', { frontend: [1] }, 'spec.provider.overrides.frontend', 'spec.provider.overrides.frontend: must be an object, got a list'],
    ['kuberay', 'rayStartParams with a number', { head: { rayStartParams: { 'num-cpus': 0 } } }, 'spec.provider.overrides.head.rayStartParams.num-cpus', 'spec.provider.overrides.head.rayStartParams.num-cpus: must be a string, got 0'],
    ['kuberay', 'head.resources.cpu a bool', { head: { resources: { cpu: true } } }, 'spec.provider.overrides.head.resources.cpu', 'spec.provider.overrides.head.resources.cpu: must be a resource quantity such as "4" or "8Gi", got true'],
    ['aim', 'imagePullSecrets an object', { imagePullSecrets: { name: 'x' } }, 'spec.provider.overrides.imagePullSecrets', 'spec.provider.overrides.imagePullSecrets: must be a list, got an object'],
    ['aim', 'imagePullSecrets item name a number', { imagePullSecrets: [{ name: 1 }] }, 'spec.provider.overrides.imagePullSecrets[0].name', 'spec.provider.overrides.imagePullSecrets[0].name: must be a string, got 1'],
  ];
  for (const [provider, name, overrides, field, message] of wrongTypes) {
    it(`${provider}: ${name} → error`, () => {
      assert.deepEqual(validateProviderOverrides(provider, overrides).errors, [{ field, message }]);
      assert.deepEqual(validateModelDeployment(md({ name: provider, overrides })).errors, [{ field, message }], 'also at admission when the provider is named');
    });
  }

  it('warns about unknown keys (and lets them through)', () => {
    assert.deepEqual(validateProviderOverrides('dynamo', { routerMode: 'kv', frontend: { replicas: 1, colour: 'blue' }, turbo: true }), {
      errors: [],
      warnings: ['spec.provider.overrides.frontend.colour: unknown override for provider dynamo; it is ignored', 'spec.provider.overrides.turbo: unknown override for provider dynamo; it is ignored'],
    });
    assert.deepEqual(validateProviderOverrides('kaito', { preset: { name: 'x' } }).warnings, ['spec.provider.overrides.preset: unknown override for provider kaito; it is ignored'], 'KAITO has no overrides');
    assert.deepEqual(validateModelDeployment(md({ name: 'kuberay', overrides: { worker: {} } })).warnings, ['spec.provider.overrides.worker: unknown override for provider kuberay; it is ignored']);
  });

  it('type-checks nothing before a provider is chosen, nor for providers it does not know', () => {
    assert.deepEqual(validateProviderOverrides(undefined, { routerMode: 42, anything: { x: 1 } }), { errors: [], warnings: [] });
    assert.deepEqual(validateProviderOverrides('third-party', { routerMode: 42 }), { errors: [], warnings: [] });
  });

  it('an overrides value that is not an object is an error', () => {
    assert.deepEqual(validateProviderOverrides('dynamo', ['kv']).errors, [{ field: 'spec.provider.overrides', message: 'spec.provider.overrides: must be an object, got a list' }]);
  });
});
