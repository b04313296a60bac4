// The chart's in-cluster dashboard (values "dashboard", docs/dashboard.md "In a cluster"): off by default;
// on, `modelplane dashboard --auth tokenreview` as its own ServiceAccount whose only grants are TokenReviews and
// impersonation (the generated DASHBOARD_RULES, the ones test/cli/dashboard/signin.integration.test.ts runs the
// dashboard under), a Service onto its port, the restricted pod security of every other Deployment, and values
// that cannot work refused naming the value. The API server's authoriser is asked what the ServiceAccount may do.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { Command } from 'commander';
import { registerDashboard } from '../../src/cli/dashboard.ts';
import type { DashboardCommandOptions } from '../../src/cli/dashboard/options.ts';
import { DASHBOARD_RULES } from '../../src/controllers/rbac.ts';
import { grants, helm, type Manifest, ofKind, renderChart } from './chart.ts';
import { objectProblems, securityProblems } from './chart-checks.ts';

const NS = 'platform-dashboards';
const NAME = 'modelplane-dashboard';
const ENABLED = ['--set', 'dashboard.enabled=true'];

/** the dashboard's options as its own command line parses the Deployment's args */
function parseDashboardArgs(args: string[]): DashboardCommandOptions {
  let parsed: DashboardCommandOptions | undefined;
  const program = new Command().exitOverride();
  registerDashboard(program);
  const cmd = program.commands.find((c) => c.name() === 'dashboard')!;
  cmd.action((opts: DashboardCommandOptions) => {
    parsed = opts;
  });
  program.parse(args, { from: 'user' });
  if (!parsed) throw new Error(`modelplane ${args.join(' ')} did not parse as the dashboard command`);
  return parsed;
}

const dashboardObjects = (objects: Manifest[]) =>
  objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'dashboard');

describe('Helm chart: the dashboard for many people, with TokenReview and impersonation', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let objects: Manifest[];
  let yaml: string;

  before(async () => {
    cluster = await startTestCluster();
    await cluster.k(['create', 'namespace', NS]);
    await cluster.k(['label', 'namespace', NS, 'pod-security.kubernetes.io/enforce=restricted']);
    ({ objects, yaml } = await renderChart(NS, ENABLED));
  });
  after(() => cluster?.stop());

  it('is off by default: no object of the dashboard is rendered', async () => {
    const { objects: plain } = await renderChart(NS);
    assert.deepEqual(dashboardObjects(plain), []);
    assert.ok(!plain.some((o) => o.metadata.name === NAME));
  });

  it('renders its ServiceAccount, ClusterRole, binding, Deployment and Service, valid and in the namespace', async () => {
    const mine = dashboardObjects(objects);
    assert.deepEqual(
      mine.map((o) => `${o.kind}/${o.metadata.name}`).sort(),
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service', 'ServiceAccount'].map((k) => `${k}/${NAME}`),
    );
    assert.deepEqual(objectProblems(mine, NS), []);
    assert.deepEqual(securityProblems(mine), []);
    // the namespace enforces Pod Security restricted: the API server admits the pod template as it is
    const r = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: yaml });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /PodSecurity/);
    const lint = await helm(['lint', 'deploy/helm/modelplane', '--strict', '--namespace', NS, ...ENABLED]);
    assert.equal(lint.code, 0, `${lint.stdout}${lint.stderr}`);
  });

  it('its ClusterRole grants exactly TokenReview create and impersonation, bound to its ServiceAccount only', () => {
    const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === NAME)!;
    assert.deepEqual(grants(role.rules), [
      '/groups impersonate',
      '/serviceaccounts impersonate',
      '/users impersonate',
      'authentication.k8s.io/tokenreviews create',
      'authentication.k8s.io/uids impersonate',
      'authentication.k8s.io/userextras/authentication.kubernetes.io/credential-id impersonate',
      'authentication.k8s.io/userextras/authentication.kubernetes.io/node-name impersonate',
      'authentication.k8s.io/userextras/authentication.kubernetes.io/node-uid impersonate',
      'authentication.k8s.io/userextras/authentication.kubernetes.io/pod-name impersonate',
      'authentication.k8s.io/userextras/authentication.kubernetes.io/pod-uid impersonate',
    ]);
    assert.deepEqual(grants(role.rules), grants(DASHBOARD_RULES), 'the rules the dashboard is tested under');
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === NAME)!;
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: NAME, namespace: NS }]);
    // nothing else in the chart binds the dashboard's ServiceAccount
    const others = [...ofKind(objects, 'ClusterRoleBinding'), ...ofKind(objects, 'RoleBinding')].filter(
      (b) => b !== binding && (b.subjects ?? []).some((s: { name: string }) => s.name === NAME),
    );
    assert.deepEqual(others, []);
  });

  it("the API server's authoriser lets its ServiceAccount review tokens and impersonate, and read nothing", async () => {
    const applied = await cluster.kubectl(['apply', '-f', '-'], {
      input: dashboardObjects(objects)
        .filter((o) => o.kind !== 'Deployment' && o.kind !== 'Service')
        .map((o) => JSON.stringify(o))
        .join('\n'),
    });
    assert.equal(applied.code, 0, applied.stderr);
    const can = async (verb: string, resource: string, ns?: string) => {
      const r = await cluster.kubectl([
        'auth',
        'can-i',
        verb,
        resource,
        `--as=system:serviceaccount:${NS}:${NAME}`,
        ...(ns ? ['-n', ns] : ['--all-namespaces']),
      ]);
      return r.stdout.trim();
    };
    assert.equal(await can('create', 'tokenreviews.authentication.k8s.io'), 'yes');
    assert.equal(await can('impersonate', 'users'), 'yes');
    assert.equal(await can('impersonate', 'groups'), 'yes');
    assert.equal(await can('impersonate', 'serviceaccounts', 'team-a'), 'yes');
    for (const [verb, resource] of [
      ['list', 'secrets'],
      ['get', 'secrets'],
      ['list', 'configmaps'],
      ['list', 'modeldeployments.kubeairunway.ai'],
      ['create', 'modeldeployments.kubeairunway.ai'],
      ['create', 'clusterrolebindings.rbac.authorization.k8s.io'],
      ['create', 'subjectaccessreviews.authorization.k8s.io'],
    ])
      assert.equal(await can(verb!, resource!), 'no', `${verb} ${resource}`);
  });

  it('runs `modelplane dashboard --auth tokenreview` on every address, on the port its probes and Service use', () => {
    const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === NAME)!;
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    assert.equal(pod.serviceAccountName, NAME);
    assert.equal(c.image, 'modelplane:0.1.0');
    assert.deepEqual(c.args, ['dashboard', '--auth=tokenreview', '--address=0.0.0.0', '--port=8090']);
    const opts = parseDashboardArgs(c.args);
    assert.deepEqual(
      [opts.auth, opts.address, opts.port, opts.namespace, opts.readOnly],
      ['tokenreview', '0.0.0.0', '8090', undefined, undefined],
    );
    assert.deepEqual(c.ports, [{ name: 'http', containerPort: 8090, protocol: 'TCP' }]);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      assert.deepEqual(c[probe].tcpSocket, { port: 'http' }, probe);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === NAME)!;
    assert.deepEqual(svc.spec.ports, [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
    const labels = d.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(svc.spec.selector as Record<string, string>)) assert.equal(labels[k], v, k);
    // the controllers' metrics Service may select the pod but finds no port named "metrics" on it
    assert.ok(!c.ports.some((p: { name: string }) => p.name === 'metrics'));
  });

  it('namespace, read-only, port and extra impersonated attributes reach the args and the ClusterRole', async () => {
    const { objects: set } = await renderChart(NS, [
      ...ENABLED,
      '--set',
      'dashboard.namespace=team-a',
      '--set',
      'dashboard.readOnly=true',
      '--set',
      'dashboard.port=9000',
      '--set',
      'dashboard.impersonateUserExtras={example.com/team,groups.example.com/tier}',
    ]);
    const c = set.find((o) => o.kind === 'Deployment' && o.metadata.name === NAME)!.spec.template.spec.containers[0];
    assert.deepEqual(c.args, [
      'dashboard',
      '--auth=tokenreview',
      '--address=0.0.0.0',
      '--port=9000',
      '--namespace=team-a',
      '--read-only',
    ]);
    const opts = parseDashboardArgs(c.args);
    assert.deepEqual([opts.namespace, opts.readOnly, opts.port], ['team-a', true, '9000']);
    assert.equal(c.ports[0].containerPort, 9000);
    const role = set.find((o) => o.kind === 'ClusterRole' && o.metadata.name === NAME)!;
    const extra = grants(role.rules).filter((g) => !grants(DASHBOARD_RULES).includes(g));
    assert.deepEqual(extra, [
      'authentication.k8s.io/userextras/example.com/team impersonate',
      'authentication.k8s.io/userextras/groups.example.com/tier impersonate',
    ]);
  });

  describe('values that cannot work fail to render, naming the value', () => {
    for (const [name, values, message] of [
      ['port 0', ['--set', 'dashboard.port=0'], /dashboard\.port: 0 is not a port/],
      ['port 70000', ['--set', 'dashboard.port=70000'], /dashboard\.port: 70000 is not a port/],
      [
        'a namespace that is a flag',
        ['--set', 'dashboard.namespace=--kubeconfig=/etc/x'],
        /dashboard\.namespace: "--kubeconfig=\/etc\/x" is not a namespace name/,
      ],
      [
        'an extra attribute with a space',
        ['--set', 'dashboard.impersonateUserExtras={a b}'],
        /dashboard\.impersonateUserExtras: "a b" is not an extra attribute key/,
      ],
    ] as const) {
      it(name, async () => {
        const r = await helm(['template', 'modelplane', 'deploy/helm/modelplane', '-n', NS, ...ENABLED, ...values]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, message);
      });
    }
  });
});
