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
    [
      'securityContext at the top',
      { securityContext: { runAsUser: 0 } },
      'spec.provider.overrides.securityContext',
      'securityContext',
    ],
    [
      'privileged deep in a DGD service',
      {
        spec: {
          services: { VllmWorker: { extraPodSpec: { mainContainer: { securityContext: { privileged: true } } } } },
        },
      },
      'spec.provider.overrides.spec.services.VllmWorker.extraPodSpec.mainContainer.securityContext',
      'securityContext',
    ],
    [
      'privileged on its own',
      { head: { template: { privileged: true } } },
      'spec.provider.overrides.head.template.privileged',
      'privileged',
    ],
    ['hostNetwork', { spec: { hostNetwork: true } }, 'spec.provider.overrides.spec.hostNetwork', 'hostNetwork'],
    [
      'hostPID',
      { spec: { template: { spec: { hostPID: true } } } },
      'spec.provider.overrides.spec.template.spec.hostPID',
      'hostPID',
    ],
    ['hostIPC', { spec: { hostIPC: true } }, 'spec.provider.overrides.spec.hostIPC', 'hostIPC'],
    [
      'serviceAccountName',
      { head: { serviceAccountName: 'cluster-admin-sa' } },
      'spec.provider.overrides.head.serviceAccountName',
      'serviceAccountName',
    ],
    [
      'automountServiceAccountToken',
      { spec: { automountServiceAccountToken: true } },
      'spec.provider.overrides.spec.automountServiceAccountToken',
      'automountServiceAccountToken',
    ],
    [
      'a hostPath volume inside a list',
      {
        spec: {
          volumes: [
            { name: 'ok', emptyDir: {} },
            { name: 'root', hostPath: { path: '/' } },
          ],
        },
      },
      'spec.provider.overrides.spec.volumes[1].hostPath',
      'hostPath',
    ],
    [
      'a hostPort in a container port list',
      { spec: { containers: [{ ports: [{ containerPort: 80, hostPort: 80 }] }] } },
      'spec.provider.overrides.spec.containers[0].ports[0].hostPort',
      'hostPort',
    ],
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
    const { errors } = validateProviderOverrides(undefined, {
      spec: { hostNetwork: true, hostPID: true, template: { spec: { securityContext: {} } } },
    });
    assert.deepEqual(
      errors.map((e) => e.field),
      [
        'spec.provider.overrides.spec.hostNetwork',
        'spec.provider.overrides.spec.hostPID',
        'spec.provider.overrides.spec.template.spec.securityContext',
      ],
    );
  });

  it('covers at least the fields docs/kubeairunway.md and the issue name', () => {
    for (const k of ['securityContext', 'hostNetwork', 'hostPID', 'privileged', 'serviceAccountName', 'hostPath'])
      assert.ok(PRIVILEGED_OVERRIDE_KEYS.has(k), k);
  });

  it('does not mistake values for keys', () => {
    assert.deepEqual(
      validateProviderOverrides('dynamo', { spec: { note: 'hostNetwork', labels: ['privileged'] } }).errors,
      [],
    );
  });
});

describe('reserved top-level keys', () => {
  for (const key of ['apiVersion', 'kind', 'metadata', 'status']) {
    it(key, () => {
      const { errors } = validateProviderOverrides('dynamo', {
        [key]: key === 'metadata' || key === 'status' ? {} : 'x',
      });
      assert.deepEqual(errors, [
        {
          field: `spec.provider.overrides.${key}`,
          message: `spec.provider.overrides.${key}: overriding "${key}" is not allowed (the controller owns the resource's identity and status)`,
        },
      ]);
    });
  }
});

describe("docs/kubeairunway.md's documented overrides, per provider", () => {
  it("accepts docs/kubeairunway.md's Dynamo and KubeRay examples without a warning", () => {
    const dynamo = { routerMode: 'kv', frontend: { replicas: 2, resources: { cpu: '4', memory: '8Gi' } } };
    const kuberay = {
      head: {
        resources: { cpu: '4', memory: '8Gi' },
        rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '0' },
      },
    };
    assert.deepEqual(validateModelDeployment(md({ name: 'dynamo', overrides: dynamo })), { errors: [], warnings: [] });
    assert.deepEqual(validateModelDeployment(md({ name: 'kuberay', overrides: kuberay })), {
      errors: [],
      warnings: [],
    });
    for (const mode of ['kv', 'round-robin', 'none'])
      assert.deepEqual(validateProviderOverrides('dynamo', { routerMode: mode }).errors, []);
    assert.deepEqual(
      validateProviderOverrides('dynamo', { spec: { services: { VllmWorker: { multinode: { nodeCount: 2 } } } } }),
      { errors: [], warnings: [] },
    );
  });

  const wrongTypes: Array<[string, string, Record<string, unknown>, string, string]> = [
    [
      'dynamo',
      'routerMode not in the enum',
      { routerMode: 'fastest' },
      'spec.provider.overrides.routerMode',
      'spec.provider.overrides.routerMode: must be one of "kv", "round-robin", "none", got "fastest"',
    ],
    [
      'dynamo',
      'frontend.replicas a string',
      { frontend: { replicas: 'two' } },
      'spec.provider.overrides.frontend.replicas',
      'spec.provider.overrides.frontend.replicas: must be an integer >= 0, got "two"',
    ],
    [
      'dynamo',
      'frontend.replicas negative',
      { frontend: { replicas: -1 } },
      'spec.provider.overrides.frontend.replicas',
      'spec.provider.overrides.frontend.replicas: must be an integer >= 0, got -1',
    ],
    [
      'dynamo',
      'frontend.resources.memory not a quantity',
      { frontend: { resources: { memory: '8 gigs' } } },
      'spec.provider.overrides.frontend.resources.memory',
      'spec.provider.overrides.frontend.resources.memory: must be a resource quantity such as "4" or "8Gi", got "8 gigs"',
    ],
    [
      'dynamo',
      'frontend a list',
      { frontend: [1] },
      'spec.provider.overrides.frontend',
      'spec.provider.overrides.frontend: must be an object, got a list',
    ],
    [
      'kuberay',
      'rayStartParams with a number',
      { head: { rayStartParams: { 'num-cpus': 0 } } },
      'spec.provider.overrides.head.rayStartParams.num-cpus',
      'spec.provider.overrides.head.rayStartParams.num-cpus: must be a string, got 0',
    ],
    [
      'kuberay',
      'head.resources.cpu a bool',
      { head: { resources: { cpu: true } } },
      'spec.provider.overrides.head.resources.cpu',
      'spec.provider.overrides.head.resources.cpu: must be a resource quantity such as "4" or "8Gi", got true',
    ],
    [
      'aim',
      'imagePullSecrets an object',
      { imagePullSecrets: { name: 'x' } },
      'spec.provider.overrides.imagePullSecrets',
      'spec.provider.overrides.imagePullSecrets: must be a list, got an object',
    ],
    [
      'aim',
      'imagePullSecrets item name a number',
      { imagePullSecrets: [{ name: 1 }] },
      'spec.provider.overrides.imagePullSecrets[0].name',
      'spec.provider.overrides.imagePullSecrets[0].name: must be a string, got 1',
    ],
  ];
  for (const [provider, name, overrides, field, message] of wrongTypes) {
    it(`${provider}: ${name} → error`, () => {
      assert.deepEqual(validateProviderOverrides(provider, overrides).errors, [{ field, message }]);
      assert.deepEqual(
        validateModelDeployment(md({ name: provider, overrides })).errors,
        [{ field, message }],
        'also at admission when the provider is named',
      );
    });
  }

  it('warns about unknown keys (and lets them through)', () => {
    assert.deepEqual(
      validateProviderOverrides('dynamo', { routerMode: 'kv', frontend: { replicas: 1, colour: 'blue' }, turbo: true }),
      {
        errors: [],
        warnings: [
          'spec.provider.overrides.frontend.colour: unknown override for provider dynamo; it is ignored',
          'spec.provider.overrides.turbo: unknown override for provider dynamo; it is ignored',
        ],
      },
    );
    assert.deepEqual(
      validateProviderOverrides('kaito', { preset: { name: 'x' } }).warnings,
      ['spec.provider.overrides.preset: unknown override for provider kaito; it is ignored'],
      'KAITO has no overrides',
    );
    assert.deepEqual(validateModelDeployment(md({ name: 'kuberay', overrides: { worker: {} } })).warnings, [
      'spec.provider.overrides.worker: unknown override for provider kuberay; it is ignored',
    ]);
  });

  it('type-checks nothing before a provider is chosen, nor for providers it does not know', () => {
    assert.deepEqual(validateProviderOverrides(undefined, { routerMode: 42, anything: { x: 1 } }), {
      errors: [],
      warnings: [],
    });
    assert.deepEqual(validateProviderOverrides('third-party', { routerMode: 42 }), { errors: [], warnings: [] });
  });

  it('an overrides value that is not an object is an error', () => {
    assert.deepEqual(validateProviderOverrides('dynamo', ['kv']).errors, [
      { field: 'spec.provider.overrides', message: 'spec.provider.overrides: must be an object, got a list' },
    ]);
  });
});

describe('overrides cannot escape the limits or the denylist, whatever the spelling or nesting', () => {
  const errorsOf = (provider: string, overrides: Record<string, unknown>) =>
    validateProviderOverrides(provider, overrides).errors;

  it('refuses privileged keys whatever their case or -/_ spelling, and projected service-account tokens', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ spec: { HostNetwork: true } }, 'spec.provider.overrides.spec.HostNetwork'],
      [{ spec: { SECURITYCONTEXT: { runAsUser: 0 } } }, 'spec.provider.overrides.spec.SECURITYCONTEXT'],
      [{ spec: { host_pid: true } }, 'spec.provider.overrides.spec.host_pid'],
      [{ spec: { 'service-account-name': 'admin' } }, 'spec.provider.overrides.spec.service-account-name'],
      [
        {
          spec: {
            volumes: [
              { name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'kube' } }] } },
            ],
          },
        },
        'spec.provider.overrides.spec.volumes[0].projected.sources[0].serviceAccountToken',
      ],
    ];
    for (const [overrides, field] of cases) {
      const errors = errorsOf('dynamo', overrides);
      assert.deepEqual(
        errors.map((e) => e.field),
        [field],
        JSON.stringify(overrides),
      );
      assert.match(errors[0]!.message, /is not allowed for security reasons$/);
    }
  });

  it('holds replica, GPU, CPU and memory counts in overrides to the ceilings of spec', () => {
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      [
        'untyped Dynamo spec replicas',
        { spec: { services: { VllmWorker: { replicas: 40 } } } },
        'spec.provider.overrides.spec.services.VllmWorker.replicas',
        /40 exceeds maximum allowed \(32\): overrides may not ask for more than spec\.scaling may; set it there$/,
      ],
      [
        'typed Dynamo frontend.replicas',
        { frontend: { replicas: 33 } },
        'spec.provider.overrides.frontend.replicas',
        /33 exceeds maximum allowed \(32\)/,
      ],
      [
        'multinode nodeCount',
        { spec: { services: { VllmWorker: { multinode: { nodeCount: 100 } } } } },
        'spec.provider.overrides.spec.services.VllmWorker.multinode.nodeCount',
        /100 exceeds maximum allowed \(32\)/,
      ],
      [
        'GPU limits by resource name',
        { spec: { services: { VllmWorker: { resources: { limits: { gpu: '65' } } } } } },
        'spec.provider.overrides.spec.services.VllmWorker.resources.limits.gpu',
        /65 exceeds maximum allowed \(64\)/,
      ],
      [
        'an extended GPU resource name',
        { spec: { template: { limits: { 'nvidia.com/gpu': 128 } } } },
        'spec.provider.overrides.spec.template.limits.nvidia.com/gpu',
        /128 exceeds maximum allowed \(64\)/,
      ],
      [
        'a gpu block with a count',
        { spec: { gpu: { count: 100 } } },
        'spec.provider.overrides.spec.gpu.count',
        /100 exceeds maximum allowed \(64\)/,
      ],
      [
        'case does not matter',
        { spec: { Replicas: 50 } },
        'spec.provider.overrides.spec.Replicas',
        /50 exceeds maximum allowed \(32\)/,
      ],
      [
        'cpu',
        { frontend: { resources: { cpu: '1000' } } },
        'spec.provider.overrides.frontend.resources.cpu',
        /1000 exceeds maximum allowed \(512\)/,
      ],
      [
        'memory',
        { head: { resources: { memory: '8Ti' } } },
        'spec.provider.overrides.head.resources.memory',
        /8Ti exceeds maximum allowed \(4Ti\)/,
      ],
    ];
    for (const [name, overrides, field, message] of cases) {
      const provider = name.includes('head') ? 'kuberay' : 'dynamo';
      const errors = errorsOf(provider, overrides);
      assert.deepEqual(
        errors.map((e) => e.field),
        [field],
        name,
      );
      assert.match(errors[0]!.message, message, name);
    }
    // within the limits, and numbers that are not sizes, pass
    assert.deepEqual(
      errorsOf('dynamo', {
        frontend: { replicas: 2, resources: { cpu: '4', memory: '8Gi' } },
        spec: {
          services: { VllmWorker: { replicas: 32, multinode: { nodeCount: 2 } } },
          gpu: { count: 64, timeoutSeconds: 600 },
        },
      }),
      [],
    );
    // the webhook (and the reconcile-time validation) refuses them with the rest of the spec
    const r = validateModelDeployment(
      md({ name: 'dynamo', overrides: { spec: { services: { VllmWorker: { replicas: 1000 } } } } }),
    );
    assert.match(admissionMessage(r.errors), /VllmWorker\.replicas 1000 exceeds maximum allowed \(32\)/);
  });
});
