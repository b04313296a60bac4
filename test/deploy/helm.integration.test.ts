// The Helm chart (deploy/helm/modelplane) with the real helm and kubectl: its generated files are what
// `modelplane crds` / `modelplane rbac` print; each render (defaults and overrides) is structurally valid,
// accepted by the API server, PSS-restricted, wired consistently (args ↔ ports ↔ Services ↔ RBAC).
// helm-install.integration.test.ts installs it and runs the operator under its RBAC.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { parse as parseYaml } from 'yaml';
import { CHART_DIR, CHART_RBAC_FILE, staleChartFiles } from '../../src/cli/chart.ts';
import { CHART_PATH, helm, type Manifest, ofKind, parseManifests, renderChart, run } from './chart.ts';
import {
  METRICS_SERVICE,
  objectProblems,
  podSecurityWarnings,
  rbacProblems,
  securityProblems,
  WEBHOOK_SERVICE,
  wiringProblems,
} from './chart-checks.ts';

const ALL = [
  'controller',
  'webhooks',
  'provider-aim',
  'provider-dynamo',
  'provider-kaito',
  'provider-kuberay',
  'provider-llmd',
];
const NO_PROVIDERS =
  'providers.aim.enabled=false,providers.dynamo.enabled=false,providers.kaito.enabled=false,providers.kuberay.enabled=false,providers.llmd.enabled=false';

interface RenderCase {
  name: string;
  namespace: string;
  values: string[];
  /** Deployments expected, without the modelplane- prefix */
  deployments: string[];
  env: Record<string, string>;
  replicas?: Record<string, number>;
}

const CASES: RenderCase[] = [
  {
    name: 'default values',
    namespace: 'modelplane-system',
    values: [],
    deployments: ALL,
    env: { MODELPLANE_LOG_LEVEL: 'info', AIM_SYSTEM_NAMESPACE: 'aim-system' },
  },
  {
    name: 'custom namespace, dynamo and kuberay disabled, AIM namespace set',
    namespace: 'ml-ops',
    values: ['--set', 'providers.dynamo.enabled=false,providers.kuberay.enabled=false,aimSystemNamespace=aim-ops'],
    deployments: ['controller', 'webhooks', 'provider-aim', 'provider-kaito', 'provider-llmd'],
    env: { MODELPLANE_LOG_LEVEL: 'info', AIM_SYSTEM_NAMESPACE: 'aim-ops' },
  },
  {
    name: 'the aim controller set alone: no webhooks, no providers',
    namespace: 'ml-ops',
    values: ['--set-json', 'controller.sets=["aim"]', '--set', `webhooks.enabled=false,${NO_PROVIDERS}`],
    deployments: ['controller'],
    env: { MODELPLANE_LOG_LEVEL: 'info', AIM_SYSTEM_NAMESPACE: 'aim-system' },
  },
  {
    name: 'custom ports, replicas and log level',
    namespace: 'modelplane-system',
    values: [
      '--set',
      'metrics.port=9090,webhooks.port=10443,controller.replicas=2,providers.kaito.replicas=3,logLevel=warn',
    ],
    deployments: ALL,
    env: { MODELPLANE_LOG_LEVEL: 'warn', AIM_SYSTEM_NAMESPACE: 'aim-system' },
    replicas: { controller: 2, 'provider-kaito': 3, webhooks: 1, 'provider-aim': 1 },
  },
];
const NAMESPACES = [...new Set(CASES.map((c) => c.namespace))];

/** the `modelplane` CLI as the image runs it */
async function modelplane(args: string[]): Promise<string> {
  const r = await run(process.execPath, ['bin/modelplane.js', ...args]);
  if (r.code !== 0) throw new Error(`modelplane ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

describe('Helm chart deploy/helm/modelplane', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let printedCrds: string;
  const printedRbac = new Map<string, Manifest[]>();
  const renders = new Map<string, Manifest[]>();
  const yamls = new Map<string, string>();

  before(async () => {
    const [c, crds, ...rbac] = await Promise.all([
      startTestCluster(),
      modelplane(['crds']),
      ...NAMESPACES.map((ns) => modelplane(['rbac', '--namespace', ns])),
    ]);
    cluster = c;
    printedCrds = crds;
    for (const [i, ns] of NAMESPACES.entries()) printedRbac.set(ns, parseManifests(rbac[i]!));
    // The release namespaces enforce and warn at Pod Security "restricted", so the API server's PodSecurity
    // admission checks the chart's pod templates exactly as a hardened cluster would.
    for (const ns of NAMESPACES) {
      await cluster.k(['create', 'namespace', ns]);
      await cluster.k([
        'label',
        'namespace',
        ns,
        'pod-security.kubernetes.io/enforce=restricted',
        'pod-security.kubernetes.io/warn=restricted',
      ]);
    }
    for (const c of CASES) {
      const r = await renderChart(c.namespace, c.values);
      renders.set(c.name, r.objects);
      yamls.set(c.name, r.yaml);
    }
  });
  after(() => cluster?.stop());

  it('its generated files are current: the CRDs are what `modelplane crds` prints, the rules what `modelplane rbac` prints', () => {
    assert.deepEqual(staleChartFiles(CHART_DIR), [], 'run npm run gen:chart');
    assert.equal(readFileSync(`${CHART_PATH}/crds/modelplane.yaml`, 'utf8'), printedCrds);
    const generated = parseYaml(readFileSync(`${CHART_PATH}/${CHART_RBAC_FILE}`, 'utf8')) as {
      sets: Record<string, { clusterRules: unknown; namespaceRules?: unknown }>;
    };
    const printed = printedRbac.get('modelplane-system')!;
    const printedSets = ofKind(printed, 'ServiceAccount').map((sa) => sa.metadata.name.replace(/^modelplane-/, ''));
    assert.deepEqual(Object.keys(generated.sets).sort(), printedSets.sort());
    for (const set of printedSets) {
      const role = (kind: string) =>
        printed.find((o) => o.kind === kind && o.metadata.name === `modelplane-${set}`)?.rules;
      assert.deepEqual(generated.sets[set]!.clusterRules, role('ClusterRole'), `${set}: ClusterRole rules`);
      assert.deepEqual(generated.sets[set]!.namespaceRules, role('Role'), `${set}: Role rules`);
    }
  });

  it('helm lint --strict passes with the default values and every override', async () => {
    for (const c of CASES) {
      const r = await helm(['lint', CHART_PATH, '--strict', '--namespace', c.namespace, ...c.values]);
      assert.equal(r.code, 0, `${c.name}: ${r.stdout}${r.stderr}`);
    }
  });

  for (const c of CASES) {
    describe(c.name, () => {
      const objects = () => renders.get(c.name)!;

      it('renders one Deployment per process, with its replicas', () => {
        const deployments = ofKind(objects(), 'Deployment');
        assert.deepEqual(
          deployments.map((d) => d.metadata.name).sort(),
          c.deployments.map((d) => `modelplane-${d}`).sort(),
        );
        for (const [name, n] of Object.entries(c.replicas ?? {}))
          assert.equal(deployments.find((d) => d.metadata.name === `modelplane-${name}`)?.spec.replicas, n, name);
        assert.equal(
          objects().some((o) => o.kind === 'Service' && o.metadata.name === WEBHOOK_SERVICE),
          c.deployments.includes('webhooks'),
        );
        assert.ok(objects().some((o) => o.kind === 'Service' && o.metadata.name === METRICS_SERVICE));
      });

      it('every object is valid Kubernetes and in the release namespace; the API server accepts them all', async () => {
        assert.deepEqual(objectProblems(objects(), c.namespace), []);
        const r = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: yamls.get(c.name)! });
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stderr, /PodSecurity/, "no pod template would violate the namespace's restricted level");
        assert.equal(r.stdout.match(/\(server dry run\)/g)?.length, objects().length, r.stdout);
      });

      it('each ServiceAccount has exactly the RBAC `modelplane rbac` gives the sets its Deployment runs', () => {
        assert.deepEqual(rbacProblems(objects(), c.namespace, printedRbac.get(c.namespace)!), []);
      });

      it("args parse with modelplane's own flags; ports, probes, env and Services agree with them", () => {
        assert.deepEqual(wiringProblems(objects(), c.env), []);
      });

      it('pods meet Pod Security Standards restricted, with a read-only root filesystem', () => {
        assert.deepEqual(securityProblems(objects()), []);
      });
    });
  }

  describe('values that cannot work fail to render, naming the value', () => {
    const BAD: Array<[string, string[], RegExp]> = [
      [
        'an unknown controller set',
        ['--set-json', 'controller.sets=["aim","vllm-router"]'],
        /controller\.sets: unknown controller set "vllm-router"; known: aim, kubeairunway-core, llamastack, autoscaler$/m,
      ],
      [
        'webhooks inside the controller',
        ['--set-json', 'controller.sets=["aim","webhooks"]'],
        /controller\.sets: "webhooks" runs in its own Deployment/,
      ],
      ['no controller sets', ['--set-json', 'controller.sets=[]'], /controller\.sets is empty/],
      [
        'an unknown provider',
        ['--set', 'providers.vllm.enabled=true'],
        /providers\.vllm: unknown provider; known: aim, dynamo, kaito, kuberay/,
      ],
      [
        'two controller replicas without leader election',
        ['--set', 'controller.replicas=2,controller.leaderElect=false'],
        /controller\.replicas > 1 needs controller\.leaderElect=true/,
      ],
      [
        'a routing Gateway without its namespace',
        ['--set', 'controller.gateway.name=inference'],
        /controller\.gateway: set both name and namespace/,
      ],
      [
        'provider replicas without leader election',
        ['--set', 'providers.kaito.replicas=2,providers.leaderElect=false'],
        /providers: kaito has 2 replicas but providers\.leaderElect is false/,
      ],
    ];
    for (const [name, values, message] of BAD) {
      it(name, async () => {
        const r = await helm(['template', 'modelplane', CHART_PATH, ...values]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, message);
      });
    }
  });

  it("controller.gateway becomes the controller's --gateway-name/--gateway-namespace", async () => {
    const argsOf = async (values: string[]) =>
      ofKind((await renderChart('modelplane-system', values)).objects, 'Deployment')
        .find((d) => d.metadata.name === 'modelplane-controller')!
        .spec.template.spec.containers[0].args.filter((a: string) => a.startsWith('--gateway'));
    assert.deepEqual(await argsOf(['--set', 'controller.gateway.name=inference,controller.gateway.namespace=gw']), [
      '--gateway-name=inference',
      '--gateway-namespace=gw',
    ]);
    assert.deepEqual(await argsOf([]), []);
  });

  it('prometheus.url and its token reach only the process that runs the autoscaler set', async () => {
    const envOf = (objects: Manifest[]) =>
      new Map(
        ofKind(objects, 'Deployment').map((d) => [
          d.metadata.name,
          (d.spec.template.spec.containers[0].env as Array<{ name: string; value?: string; valueFrom?: unknown }>)
            .filter((e) => e.name.startsWith('PROMETHEUS_'))
            .map((e) => `${e.name}=${e.value ?? JSON.stringify(e.valueFrom)}`),
        ]),
      );
    const values = ['--set', 'prometheus.url=http://prometheus.monitoring:9090,prometheus.bearerTokenSecret.name=prom'];
    const withAutoscaler = await renderChart('modelplane-system', [
      ...values,
      '--set-json',
      'controller.sets=["aim","autoscaler"]',
    ]);
    const env = envOf(withAutoscaler.objects);
    assert.deepEqual(env.get('modelplane-controller'), [
      'PROMETHEUS_BASE_URL=http://prometheus.monitoring:9090',
      'PROMETHEUS_BEARER_TOKEN={"secretKeyRef":{"name":"prom","key":"token"}}',
    ]);
    for (const [name, vars] of env) if (name !== 'modelplane-controller') assert.deepEqual(vars, [], name);
    const without = envOf((await renderChart('modelplane-system', values)).objects);
    assert.deepEqual([...without.values()].flat(), [], 'no autoscaler set, no Prometheus settings');
  });

  describe('the checks catch a broken chart', () => {
    const deployment = (objects: Manifest[], name: string) =>
      objects.find((o) => o.kind === 'Deployment' && o.metadata.name === `modelplane-${name}`)!;
    const podSecurity = (o: Manifest[]) => podSecurityWarnings(o, 'modelplane-system', cluster.kubectl);
    const MUTATIONS: Array<[string, (o: Manifest[]) => void, (o: Manifest[]) => string[] | Promise<string[]>, RegExp]> =
      [
        [
          'a ClusterRole grants a verb more',
          (o) =>
            o
              .find((x) => x.kind === 'ClusterRole' && x.metadata.name === 'modelplane-aim')!
              .rules[0].verbs.push('delete'),
          (o) => rbacProblems(o, 'modelplane-system', printedRbac.get('modelplane-system')!),
          /modelplane-controller \(runs aim,kubeairunway-core\): cluster grants beyond modelplane rbac: \/events delete/,
        ],
        [
          'a Deployment runs a set it has no RBAC for',
          (o) =>
            (deployment(o, 'controller').spec.template.spec.containers[0].args[1] =
              '--controllers=aim,kubeairunway-core,webhooks'),
          (o) => rbacProblems(o, 'modelplane-system', printedRbac.get('modelplane-system')!),
          /grants missing vs modelplane rbac: .*secrets/,
        ],
        [
          'an option modelplane does not have',
          (o) => (deployment(o, 'provider-kaito').spec.template.spec.containers[0].args[4] = '--leader-election'),
          (o) => wiringProblems(o, {}),
          /unknown option\(s\) --leader-election/,
        ],
        [
          'the webhook Service targets the metrics port',
          (o) => (o.find((x) => x.metadata.name === WEBHOOK_SERVICE)!.spec.ports[0].targetPort = 'metrics'),
          (o) => wiringProblems(o, {}),
          /port 443 targets metrics \(8080\), not --webhook-port 9443/,
        ],
        [
          'a probe on the wrong port',
          (o) => (deployment(o, 'webhooks').spec.template.spec.containers[0].readinessProbe.httpGet.port = 'webhook'),
          (o) => wiringProblems(o, {}),
          /readinessProbe must GET \/readyz on --http-port 8080/,
        ],
        [
          'privilege escalation allowed',
          (o) =>
            (deployment(o, 'webhooks').spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation =
              true),
          podSecurity,
          /would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "modelplane" must set securityContext.allowPrivilegeEscalation=false\)/,
        ],
        [
          'a writable root filesystem',
          (o) =>
            delete deployment(o, 'controller').spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem,
          securityProblems,
          /readOnlyRootFilesystem must be true/,
        ],
        [
          'no writable /tmp',
          (o) => (deployment(o, 'provider-aim').spec.template.spec.containers[0].volumeMounts = []),
          securityProblems,
          /provider-aim: container modelplane: needs a writable emptyDir mounted at \/tmp/,
        ],
        [
          'a misspelt field',
          (o) => (deployment(o, 'controller').spec.template.spec.enableServiceLink = false),
          (o) => objectProblems(o, 'modelplane-system'),
          /spec\.template\.spec\.enableServiceLink: unknown field/,
        ],
      ];
    for (const [name, mutate, check, problem] of MUTATIONS) {
      it(name, async () => {
        const objects = structuredClone(renders.get(CASES[0]!.name)!);
        assert.deepEqual(await check(objects), [], 'clean before the change');
        mutate(objects);
        assert.match((await check(objects)).join('\n'), problem);
      });
    }
  });
});
