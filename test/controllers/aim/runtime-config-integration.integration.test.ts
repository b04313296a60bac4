// The runtime-config controllers on the embedded dev cluster (all CRDs, the simulated Gateways), driven
// with the real kubectl as a user would: docs/aim.md's config examples applied unchanged become Ready, a
// broken config shows ConfigValid=False naming each field, a missing Gateway shows GatewayFound=False and
// clears when the Gateway is created, and deprecated spellings leave a Warning event.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import { EventsV1 } from '@modelplane/runtime/events';
import { registerAimRuntimeConfigControllers } from '../../../src/controllers/aim/runtime-config/index.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

const EXAMPLES = [
  '01-aimclusterruntimeconfig-default.yaml',
  '02-aimruntimeconfig-default.yaml',
  '03-aimruntimeconfig-default.yaml',
  '05-aimruntimeconfig-default.yaml',
  '06-aimclusterruntimeconfig-default.yaml',
  '08-aimclusterruntimeconfig-default.yaml',
  '09-aimruntimeconfig-default.yaml',
];

interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}
interface Config {
  metadata: { name: string; namespace?: string; generation: number; uid: string };
  status?: { observedGeneration?: number; conditions?: Cond[] };
}

describe('runtime-config controllers on the dev cluster', { timeout: 60_000 }, () => {
  let cluster: OperatorTestCluster<unknown[]>;
  let admin: KubeClient;
  const kubectl = (args: string[], input?: string) => cluster.k(args, input);
  const getConfig = async (namespace: string | undefined, name: string): Promise<Config> =>
    JSON.parse(
      await kubectl(
        namespace ? ['get', 'aimrc', name, '-n', namespace, '-o', 'json'] : ['get', 'aimclrc', name, '-o', 'json'],
      ),
    );
  const cond = (c: Config, type: string) => c.status?.conditions?.find((x) => x.type === type);
  /** waits until the controller has judged the current generation and `ok` holds */
  const judged = (namespace: string | undefined, name: string, ok: (c: Config) => boolean, what: string) =>
    waitFor(what, async () => {
      const c = await getConfig(namespace, name);
      return c.status?.observedGeneration === c.metadata.generation &&
        cond(c, 'Ready')?.observedGeneration === c.metadata.generation &&
        ok(c)
        ? c
        : undefined;
    });

  before(async () => {
    cluster = await startOperatorTestCluster({
      name: 'aim-rc-test',
      namespaces: ['ml-team', 'team-b'],
      register: (mgr) => registerAimRuntimeConfigControllers(mgr, { operatorNamespace: 'aim-system' }),
    });
    admin = cluster.admin;
    assert.equal(cluster.registered.length, 2);
  });

  after(() => cluster?.stop());

  it("applies each of docs/aim.md's config examples unchanged and sees it Ready", async () => {
    for (const file of EXAMPLES) {
      const out = await kubectl([
        'apply',
        '-f',
        `examples/aim/${file}`,
        '-o',
        'jsonpath={.kind} {.metadata.namespace} {.metadata.name}',
      ]);
      const [kind, namespace, name] = out.split(' ');
      const c = await judged(
        kind === 'AIMRuntimeConfig' ? namespace : undefined,
        name!,
        (c) => cond(c, 'Ready')?.status === 'True',
        `${file} Ready`,
      );
      assert.equal(cond(c, 'ConfigValid')?.status, 'True', file);
      if (file.startsWith('02') || file.startsWith('03'))
        assert.equal(
          cond(c, 'GatewayFound')?.status,
          'True',
          `${file}: docs/aim.md's Gateway exists on the dev cluster`,
        );
      else assert.equal(cond(c, 'GatewayFound'), undefined, `${file}: no gatewayRef, no Gateway condition`);
    }
    // what a user sees
    assert.match(await kubectl(['get', 'aimrc', '-n', 'ml-team']), /^NAME\s+READY\s+AGE\ndefault\s+True\s+/);
    assert.match(await kubectl(['get', 'aimclrc']), /^NAME\s+READY\s+AGE\ndefault\s+True\s+/);
  });

  it('the deprecated top-level spelling leaves a note and one Warning event', async () => {
    await kubectl(['apply', '-f', 'examples/aim/02-aimruntimeconfig-default.yaml']);
    const c = await judged(
      'ml-team',
      'default',
      (c) => cond(c, 'DeprecatedFields')?.status === 'True',
      'the deprecation note',
    );
    assert.equal(cond(c, 'Ready')?.status, 'True', 'a deprecated spelling does not hold Ready back');
    assert.match(
      cond(c, 'DeprecatedFields')!.message,
      /spec\.defaultStorageClassName: deprecated; its value "team-ssd" is used as spec\.storage\.defaultStorageClassName/,
    );
    const events = await waitFor('the Warning event', async () => {
      const list = (await admin.list(EventsV1, { namespace: 'ml-team' })).items.filter(
        (e) => e.reason === 'DeprecatedField' && e.regarding?.uid === c.metadata.uid,
      );
      return list.length > 0 ? list : undefined;
    });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'Warning');
  });

  it('a broken config shows ConfigValid=False naming each field, and recovers when fixed', async () => {
    const broken = {
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'broken', namespace: 'ml-team' },
      spec: {
        routing: { pathTemplate: "/{.metadata.labels['org.example/team']}/{..name}", requestTimeout: '1.5s' },
        labelPropagation: { enabled: true, match: ['org.example/team', 'ok', 'a/b/c'] },
        // (a duplicate env name is refused at admission already: env is a map list keyed by name)
        env: [
          { name: 'GOOD', value: '1' },
          { name: '9LIVES', value: 'x' },
          { name: 'MY VAR', value: '2' },
        ],
      },
    };
    await kubectl(['apply', '-f', '-'], JSON.stringify(broken));
    await kubectl(['wait', '--for=condition=ConfigValid=False', '-n', 'ml-team', 'aimrc/broken', '--timeout=15s']);
    const message = await kubectl([
      'get',
      'aimrc',
      'broken',
      '-n',
      'ml-team',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="ConfigValid")].message}',
    ]);
    for (const field of [
      'spec.routing.pathTemplate',
      'spec.routing.requestTimeout',
      'spec.labelPropagation.match[2]',
      'spec.env[1].name',
      'spec.env[2].name',
    ]) {
      assert.ok(message.includes(`${field}: `), `${field} named in: ${message}`);
    }
    assert.ok(message.includes('write {.metadata.labels.org\\.example/team} instead'), 'the escaped form is shown');
    assert.match(message, /recursive descent/);
    assert.match(await kubectl(['get', 'aimrc', 'broken', '-n', 'ml-team']), /broken\s+False/);

    await kubectl([
      'patch',
      'aimrc',
      'broken',
      '-n',
      'ml-team',
      '--type=json',
      '-p',
      JSON.stringify([
        {
          op: 'replace',
          path: '/spec/routing',
          value: { pathTemplate: '/{.metadata.labels.org\\.example/team}', requestTimeout: '90s' },
        },
        { op: 'replace', path: '/spec/labelPropagation/match', value: ['org.example/*'] },
        { op: 'replace', path: '/spec/env', value: [{ name: 'GOOD', value: '1' }] },
      ]),
    ]);
    const fixed = await judged(
      'ml-team',
      'broken',
      (c) => cond(c, 'Ready')?.status === 'True',
      'the fixed config Ready',
    );
    assert.equal(cond(fixed, 'ConfigValid')?.reason, 'ConfigurationValid');
  });

  it('a missing Gateway: ConfigValid True, GatewayFound False, not Ready; creating the Gateway clears it', async () => {
    const cfg = {
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'default', namespace: 'team-b' },
      spec: { routing: { enabled: true, gatewayRef: { name: 'team-gateway' } } },
    };
    await kubectl(['apply', '-f', '-'], JSON.stringify(cfg));
    const missing = await judged(
      'team-b',
      'default',
      (c) => cond(c, 'GatewayFound')?.status === 'False',
      'GatewayFound=False',
    );
    assert.equal(cond(missing, 'ConfigValid')?.status, 'True', 'a missing Gateway is not a syntax error');
    assert.equal(cond(missing, 'Ready')?.status, 'False');
    assert.equal(cond(missing, 'Ready')?.reason, 'GatewayNotFound');
    assert.match(
      cond(missing, 'GatewayFound')!.message,
      /Gateway team-b\/team-gateway does not exist/,
      "the namespace defaults to the config's own",
    );

    const gw = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'team-gateway', namespace: 'team-b' },
      spec: { gatewayClassName: 'modelplane-sim', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
    };
    await kubectl(['apply', '-f', '-'], JSON.stringify(gw));
    await kubectl(['wait', '--for=condition=Ready', '-n', 'team-b', 'aimrc/default', '--timeout=15s']);
    const found = await getConfig('team-b', 'default');
    assert.equal(cond(found, 'GatewayFound')?.status, 'True');

    await kubectl(['delete', 'gateway', 'team-gateway', '-n', 'team-b']);
    await kubectl(['wait', '--for=condition=GatewayFound=False', '-n', 'team-b', 'aimrc/default', '--timeout=15s']);
  });

  it('a cluster config without a gateway namespace says what it assumes', async () => {
    const cfg = {
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMClusterRuntimeConfig',
      metadata: { name: 'per-namespace-gateways' },
      spec: { routing: { enabled: true, gatewayRef: { name: 'gw' } } },
    };
    await kubectl(['apply', '-f', '-'], JSON.stringify(cfg));
    const c = await judged(
      undefined,
      'per-namespace-gateways',
      (c) => cond(c, 'GatewayFound') !== undefined,
      'GatewayFound set',
    );
    assert.equal(cond(c, 'GatewayFound')?.status, 'Unknown');
    assert.equal(cond(c, 'GatewayFound')?.reason, 'GatewayNamespaceUnset');
    assert.match(cond(c, 'GatewayFound')!.message, /in the service's own namespace/);
    assert.equal(cond(c, 'Ready')?.status, 'True');
  });
});
