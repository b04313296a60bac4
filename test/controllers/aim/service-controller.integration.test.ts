// The AIMService controller end to end on `modelplane dev`'s embedded cluster (API server, CRDs, KServe
// and Gateway API simulators), with the operator in its own Manager. docs/aim.md's examples in examples/aim/
// are applied unchanged with the real kubectl, in the order a user would try them.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { EventsV1 } from '@modelplane/runtime/events';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { registerAimServiceController } from '../../../src/controllers/aim/service/index.ts';
import {
  AIMClusterRuntimeConfigs,
  AIMModels,
  AIMRuntimeConfigs,
  type AIMService,
  AIMServices,
} from '../../../src/controllers/aim/shared/kinds.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { type WaitOptions, waitFor } from '../../helpers/wait.ts';

const ISVC = { apiVersion: 'serving.kserve.io/v1beta1', kind: 'InferenceService' } as KindRef<
  KubeObject & { spec: Json; status?: Json }
>;
const ROUTE = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' } as KindRef<
  KubeObject & { spec: Json; status?: Json }
>;
type Json = Record<string, any>;

const QWEN_IMAGE = 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5';
const example = (file: string) => resolve('examples/aim', file);
// AIM_TEST_LOG=info shows the operator's and the simulators' logs while debugging
const log = new Logger({}, parseLogLevel(process.env.AIM_TEST_LOG, 'silent'));

const cond = (o: { status?: unknown } | undefined, type: string): Json | undefined =>
  ((o?.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type);

describe('AIMService controller on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<Controller>;
  let admin: KubeClient;
  const k = (args: string[], input?: string) => cluster.k(args, input);
  const svc = (name: string, ns: string) => admin.getOrUndefined(AIMServices, name, ns);
  const isvc = (name: string, ns: string) => admin.getOrUndefined(ISVC, name, ns);
  const route = (name: string, ns: string) => admin.getOrUndefined(ROUTE, name, ns);
  // AIM_TEST_DEBUG=1 adds ml-team/qwen-chat's status and HTTPRoute to the error of a wait that times out
  const debug: WaitOptions = process.env.AIM_TEST_DEBUG
    ? {
        detail: async () => ({
          svc: (await svc('qwen-chat', 'ml-team'))?.status,
          route: await route('qwen-chat', 'ml-team'),
        }),
      }
    : {};
  const svcWhere = (what: string, name: string, ns: string, ok: (s: AIMService) => boolean) =>
    waitFor(
      `AIMService ${ns}/${name}: ${what}`,
      async () => {
        const s = await svc(name, ns);
        return s && ok(s) ? s : undefined;
      },
      debug,
    );
  const defaultConfigEvents = async () =>
    (await admin.list(EventsV1, { namespace: 'ml-team' })).items.filter(
      (e) => e.reason === 'DefaultConfigNotFound' && e.regarding.name === 'qwen-chat',
    );
  /** the frozen-dependency technique: a model held Ready (with no templates) through its status subresource */
  const readyModel = async (kind: 'AIMModel' | 'AIMClusterModel', name: string, ns?: string) => {
    await admin.apply({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind,
      metadata: { name, ...(ns ? { namespace: ns } : {}) },
      spec: { image: QWEN_IMAGE },
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await admin.applyStatus({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind,
      metadata: { name, ...(ns ? { namespace: ns } : {}) },
      status: {
        status: 'Ready',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Frozen',
            message: 'held Ready by the test',
            lastTransitionTime: now,
          },
          // what a model with no template to create reports: it is served from its image
          {
            type: kind === 'AIMModel' ? 'ServiceTemplatesReady' : 'ClusterServiceTemplatesReady',
            status: 'True',
            reason: 'NoTemplatesExpected',
            message: 'held by the test: no templates',
            lastTransitionTime: now,
          },
        ],
      },
    });
  };

  before(async () => {
    // the operator runs in its own Manager, with only this controller
    cluster = await startOperatorTestCluster({
      name: 'aim-operator',
      log,
      namespaces: ['ml-team', 'team-b', 'ml-other'],
      register: (mgr) => registerAimServiceController(mgr, { operatorNamespace: 'aim-system' }),
    });
    admin = cluster.admin;
    await readyModel('AIMModel', 'qwen-qwen3-32b', 'ml-team');
    await readyModel('AIMClusterModel', 'qwen-qwen3-32b');
  });

  after(() => cluster?.stop());

  it('no runtime config anywhere: RuntimeConfigReady=True/DefaultConfigNotFound, one event, the InferenceService runs the model, Running', async () => {
    await k(['apply', '-f', example('04-aimservice-qwen-chat.yaml')]);
    const s = await svcWhere('Running', 'qwen-chat', 'ml-team', (s) => s.status?.status === 'Running');
    assert.equal(cond(s, 'RuntimeConfigReady')?.status, 'True');
    assert.equal(cond(s, 'RuntimeConfigReady')?.reason, 'DefaultConfigNotFound');
    assert.equal(s.status?.resolvedRuntimeConfig, undefined);
    assert.equal(s.status?.resolvedModel?.name, 'qwen-qwen3-32b');
    assert.equal(s.status?.routing, undefined, 'no config: routing is off');
    const i = await isvc('qwen-chat', 'ml-team');
    assert.equal(i?.spec.predictor.containers[0].image, QWEN_IMAGE);
    assert.equal(i?.metadata.ownerReferences?.[0]?.uid, s.metadata.uid);
    assert.equal(await route('qwen-chat', 'ml-team'), undefined);
    assert.match(await k(['get', 'aimsvc', '-n', 'ml-team']), /qwen-chat\s+Running\s+qwen-qwen3-32b\s/);
    const events = await waitFor(
      'the DefaultConfigNotFound event',
      async () => ((await defaultConfigEvents()).length > 0 ? defaultConfigEvents() : undefined),
      debug,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'Normal');
  });

  it('an explicit config that does not exist: ConfigNotFound and no InferenceService; creating it recovers without a restart', async () => {
    const spec =
      'apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata:\n  name: qwen-chat\n  namespace: team-b\nspec:\n  model:\n    name: qwen-qwen3-32b\n  runtimeConfigName: non-existent\n';
    await k(['apply', '-f', '-'], spec);
    const failed = await svcWhere(
      'ConfigNotFound',
      'qwen-chat',
      'team-b',
      (s) => cond(s, 'RuntimeConfigReady')?.reason === 'ConfigNotFound',
    );
    assert.equal(cond(failed, 'RuntimeConfigReady')?.status, 'False');
    assert.equal(cond(failed, 'ConfigValid')?.reason, 'ReferenceNotFound');
    assert.match(cond(failed, 'ConfigValid')?.message, /RuntimeConfig non-existent not found/);
    assert.equal(failed.status?.status, 'Failed');
    assert.equal(await isvc('qwen-chat', 'team-b'), undefined);

    await k(
      ['apply', '-f', '-'],
      'apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMRuntimeConfig\nmetadata:\n  name: non-existent\n  namespace: team-b\nspec: {}\n',
    );
    const config = await admin.get(AIMRuntimeConfigs, 'non-existent', 'team-b');
    const s = await svcWhere(
      'Running after the config appeared',
      'qwen-chat',
      'team-b',
      (s) => s.status?.status === 'Running',
    );
    assert.equal(cond(s, 'RuntimeConfigReady')?.reason, 'RuntimeConfigResolved');
    assert.equal(cond(s, 'ConfigValid')?.status, 'True');
    assert.deepEqual(s.status?.resolvedRuntimeConfig, {
      kind: 'AIMRuntimeConfig',
      name: 'non-existent',
      namespace: 'team-b',
      scope: 'Namespace',
      uid: config.metadata.uid,
    });
    assert.equal(s.status?.resolvedModel?.kind, 'AIMClusterModel', 'no AIMModel in team-b: the cluster model');
  });

  it('AIM example 3: the namespace template renders /ml/ml-team/conversational-ai, the gateway accepts the route', async () => {
    await k(['apply', '-f', example('03-aimruntimeconfig-default.yaml')]);
    const s = await svcWhere(
      'routed and Running',
      'qwen-chat',
      'ml-team',
      (s) =>
        s.status?.routing?.path === '/ml/ml-team/conversational-ai' &&
        s.status.status === 'Running' &&
        cond(s, 'HTTPRouteReady')?.status === 'True',
    );
    const config = await admin.get(AIMRuntimeConfigs, 'default', 'ml-team');
    assert.deepEqual(s.status?.resolvedRuntimeConfig, {
      kind: 'AIMRuntimeConfig',
      name: 'default',
      namespace: 'ml-team',
      scope: 'Namespace',
      uid: config.metadata.uid,
    });
    assert.equal(cond(s, 'HTTPRouteReady')?.reason, 'HTTPRouteAccepted');
    const r = (await route('qwen-chat', 'ml-team'))!;
    assert.deepEqual(r.spec.parentRefs, [
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'inference-gateway', namespace: 'gateways' },
    ]);
    assert.deepEqual(r.spec.rules[0].matches, [
      { path: { type: 'PathPrefix', value: '/ml/ml-team/conversational-ai' } },
    ]);
    assert.deepEqual(r.spec.rules[0].filters, [
      { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } },
    ]);
    assert.equal(r.spec.rules[0].backendRefs[0].name, 'qwen-chat-predictor');
    assert.equal(r.spec.rules[0].backendRefs[0].port, 80);
    assert.match(
      await k(['get', 'aimsvc', 'qwen-chat', '-n', 'ml-team']),
      /Running\s+qwen-qwen3-32b\s+\/ml\/ml-team\/conversational-ai/,
    );
    // another namespace's service is untouched by ml-team's config
    assert.equal(await route('qwen-chat', 'team-b'), undefined);
    assert.equal((await svc('qwen-chat', 'team-b'))?.status?.resolvedRuntimeConfig?.name, 'non-existent');
  });

  it("docs/aim.md's override: spec.routing.pathTemplate renders /custom/qwen-chat; removing it restores the config's path", async () => {
    const overridden =
      'apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata:\n  name: qwen-chat\n  namespace: ml-team\n  labels:\n    project: conversational-ai\nspec:\n  model:\n    ref: qwen-qwen3-32b\n  routing:\n    pathTemplate: "/custom/{.metadata.name}"\n';
    await k(['apply', '-f', '-'], overridden);
    await svcWhere(
      'path /custom/qwen-chat',
      'qwen-chat',
      'ml-team',
      (s) => s.status?.routing?.path === '/custom/qwen-chat',
    );
    await waitFor(
      'the HTTPRoute to match /custom/qwen-chat',
      async () => (await route('qwen-chat', 'ml-team'))?.spec.rules[0].matches[0].path.value === '/custom/qwen-chat',
      debug,
    );
    await k(['apply', '-f', example('04-aimservice-qwen-chat.yaml')]);
    await svcWhere(
      'path back to the template',
      'qwen-chat',
      'ml-team',
      (s) => s.status?.routing?.path === '/ml/ml-team/conversational-ai',
    );
  });

  it('AIM example 2: a template needing a missing label is PathTemplateInvalid (route kept, InferenceService intact); the missing Gateway is named; creating it heals', async () => {
    const routeBefore = (await route('qwen-chat', 'ml-team'))!;
    await k(['apply', '-f', example('02-aimruntimeconfig-default.yaml')]);
    const s = await svcWhere(
      'PathTemplateInvalid',
      'qwen-chat',
      'ml-team',
      (s) => cond(s, 'RoutingReady')?.reason === 'PathTemplateInvalid',
    );
    assert.equal(s.status?.status, 'Degraded');
    assert.equal(cond(s, 'Ready')?.reason, 'PathTemplateInvalid');
    assert.match(
      cond(s, 'RoutingReady')?.message,
      /spec\.routing\.pathTemplate of AIMRuntimeConfig ml-team\/default: placeholder \{\.metadata\.labels\['team'\]\}/,
    );
    assert.equal(cond(s, 'InferenceServiceReady')?.status, 'True', 'the InferenceService is untouched');
    assert.equal(
      (await route('qwen-chat', 'ml-team'))?.metadata.resourceVersion,
      routeBefore.metadata.resourceVersion,
      'the last good route is not re-applied',
    );

    // the dev cluster's simulated infrastructure may provide this Gateway; the point here is a cluster without it
    await k(['delete', 'gateway', 'kserve-gateway', '-n', 'kgateway-system', '--ignore-not-found']);
    await k(['label', 'aimsvc', 'qwen-chat', '-n', 'ml-team', 'team=nlp']);
    const rejected = await svcWhere(
      'HTTPRouteReady=False for the missing gateway',
      'qwen-chat',
      'ml-team',
      (s) => s.status?.routing?.path === '/ml-team/nlp' && cond(s, 'HTTPRouteReady')?.status === 'False',
    );
    assert.equal(cond(rejected, 'HTTPRouteReady')?.reason, 'NoMatchingParent');
    assert.match(
      cond(rejected, 'HTTPRouteReady')?.message,
      /Gateway kgateway-system\/kserve-gateway \(spec\.routing\.gatewayRef of AIMRuntimeConfig ml-team\/default\): NoMatchingParent: Gateway kgateway-system\/kserve-gateway not found/,
    );
    assert.equal(rejected.status?.status, 'Degraded');

    await k(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kgateway-system\n');
    await k(
      ['apply', '-f', '-'],
      'apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: kserve-gateway\n  namespace: kgateway-system\nspec:\n  gatewayClassName: modelplane-sim\n  listeners:\n  - name: http\n    protocol: HTTP\n    port: 80\n    allowedRoutes:\n      namespaces:\n        from: All\n',
    );
    await svcWhere(
      'Running behind kserve-gateway',
      'qwen-chat',
      'ml-team',
      (s) => s.status?.status === 'Running' && cond(s, 'HTTPRouteReady')?.status === 'True',
    );
  });

  it('AIM examples 6, 3 and 7: cluster label propagation puts the cost-center labels on the InferenceService and the HTTPRoute', async () => {
    await k(['apply', '-f', example('06-aimclusterruntimeconfig-default.yaml')]);
    await k(['apply', '-f', example('03-aimruntimeconfig-default.yaml')]);
    await k(['apply', '-f', example('07-aimservice-qwen-chat.yaml')]);
    // example 7 has no `project` label, which example 3's template needs: the user adds it
    await k(['label', 'aimsvc', 'qwen-chat', '-n', 'ml-team', 'project=chatbot-v2']);
    const s = await svcWhere(
      'routed at /ml/ml-team/chatbot-v2',
      'qwen-chat',
      'ml-team',
      (s) => s.status?.routing?.path === '/ml/ml-team/chatbot-v2',
    );
    assert.equal(
      s.status?.resolvedRuntimeConfig?.scope,
      'Namespace',
      'namespace config present: its ref, not the cluster one',
    );
    const want = {
      'org.example/cost-center': 'eng-ml',
      'org.example/department': 'engineering',
      'org.example/project': 'chatbot-v2',
    };
    for (const get of [() => isvc('qwen-chat', 'ml-team'), () => route('qwen-chat', 'ml-team')]) {
      const child = await waitFor(
        'propagated labels',
        async () => {
          const o = await get();
          return o?.metadata.labels?.['org.example/department'] === 'engineering' ? o : undefined;
        },
        debug,
      );
      for (const [key, value] of Object.entries(want))
        assert.equal(child.metadata.labels?.[key], value, `${child.kind} ${key}`);
      assert.equal(child.metadata.labels?.project, undefined, 'unmatched labels stay on the service');
      assert.equal(child.metadata.labels?.team, undefined);
    }
    const listed = await k([
      'get',
      'inferenceservices,httproutes',
      '-n',
      'ml-team',
      '-l',
      'org.example/cost-center=eng-ml',
      '-o',
      'name',
    ]);
    assert.deepEqual(listed.trim().split('\n').sort(), [
      'httproute.gateway.networking.k8s.io/qwen-chat',
      'inferenceservice.serving.kserve.io/qwen-chat',
    ]);
  });

  it('cluster scope: a namespace without its own config resolves the AIMClusterRuntimeConfig, and ml-team’s routing never reaches it; model.image creates an AIMModel', async () => {
    await k(
      ['apply', '-f', '-'],
      'apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata:\n  name: qwen-chat\n  namespace: ml-other\n  labels:\n    org.example/cost-center: research\n    project: conversational-ai\nspec:\n  model:\n    name: qwen-qwen3-32b\n',
    );
    const image = 'ghcr.io/example/aim-llama-3-8b:0.9.1';
    await k(
      ['apply', '-f', '-'],
      `apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata:\n  name: llama\n  namespace: ml-other\n  labels:\n    org.example/cost-center: research\nspec:\n  model:\n    image: ${image}\n`,
    );
    const clusterConfig = await admin.get(AIMClusterRuntimeConfigs, 'default');
    const s = await svcWhere('Running', 'qwen-chat', 'ml-other', (s) => s.status?.status === 'Running');
    assert.deepEqual(s.status?.resolvedRuntimeConfig, {
      kind: 'AIMClusterRuntimeConfig',
      name: 'default',
      namespace: '',
      scope: 'Cluster',
      uid: clusterConfig.metadata.uid,
    });
    assert.equal(s.status?.routing, undefined);
    assert.equal(await route('qwen-chat', 'ml-other'), undefined);
    assert.equal((await isvc('qwen-chat', 'ml-other'))?.metadata.labels?.['org.example/cost-center'], 'research');

    const created = await waitFor(
      'the auto-created AIMModel',
      async () => (await admin.list(AIMModels, { namespace: 'ml-other' })).items.find((m) => m.spec.image === image),
      debug,
    );
    assert.equal(created.metadata.labels?.['aim.eai.amd.com/origin'], 'auto-generated');
    assert.equal(
      created.metadata.labels?.['org.example/cost-center'],
      'research',
      'propagated to the auto-created model',
    );
    assert.equal(created.metadata.ownerReferences, undefined, 'no owner: the model outlives the service');
    const llama = await svcWhere(
      'waiting for its model',
      'llama',
      'ml-other',
      (s) => cond(s, 'ModelReady')?.reason === 'ModelNotReady',
    );
    assert.equal(llama.status?.status, 'Pending', 'the model is not Ready (no model controller runs here)');
    assert.equal(await isvc('llama', 'ml-other'), undefined, 'nothing is served before the model is Ready');
  });

  it('AIM example 5: the namespace match list replaces the cluster one, and dropping routing deletes the route', async () => {
    await k(['apply', '-f', example('05-aimruntimeconfig-default.yaml')]);
    await waitFor(
      'the HTTPRoute to be deleted',
      async () => (await route('qwen-chat', 'ml-team')) === undefined,
      debug,
    );
    const i = await waitFor(
      'department label removed',
      async () => {
        const o = await isvc('qwen-chat', 'ml-team');
        return o && o.metadata.labels?.['org.example/department'] === undefined ? o : undefined;
      },
      debug,
    );
    assert.equal(i.metadata.labels?.['org.example/cost-center'], 'eng-ml');
    assert.equal(i.metadata.labels?.['org.example/project'], undefined);
    await svcWhere(
      'no route path',
      'qwen-chat',
      'ml-team',
      (s) => s.status?.routing === undefined && s.status?.status === 'Running',
    );
  });

  it('AIM examples 8 and 9: env from the cluster config, overridden by the namespace config, each namespace its own', async () => {
    await k(['apply', '-f', example('08-aimclusterruntimeconfig-default.yaml')]);
    await k(['apply', '-f', example('09-aimruntimeconfig-default.yaml')]);
    const envOf = async (ns: string) =>
      Object.fromEntries(
        ((await isvc('qwen-chat', ns))?.spec.predictor.containers[0].env ?? []).map((e: Json) => [e.name, e.value]),
      );
    await waitFor('ml-team: HTTP', async () => (await envOf('ml-team')).AIM_DOWNLOADER_PROTOCOL === 'HTTP', debug);
    await waitFor(
      'ml-other: HTTP,XET',
      async () => (await envOf('ml-other')).AIM_DOWNLOADER_PROTOCOL === 'HTTP,XET',
      debug,
    );
    assert.equal(
      (await envOf('team-b')).AIM_DOWNLOADER_PROTOCOL,
      undefined,
      'team-b resolves `non-existent`: the configs named `default` are not its configs',
    );
  });

  it('the DefaultConfigNotFound event was emitted exactly once', async () => {
    const events = await defaultConfigEvents();
    assert.equal(events.length, 1);
    assert.ok((events[0]!.series?.count ?? 1) === 1, `series: ${JSON.stringify(events[0]!.series)}`);
  });

  it('at steady state a resync writes nothing', async () => {
    const versions = async () => {
      const out: string[] = [];
      for (const ns of ['ml-team', 'team-b', 'ml-other']) {
        for (const list of [
          await admin.list(AIMServices, { namespace: ns }),
          await admin.list(ISVC, { namespace: ns }),
          await admin.list(ROUTE, { namespace: ns }),
          await admin.list(AIMModels, { namespace: ns }),
        ]) {
          for (const o of list.items) out.push(`${o.kind} ${ns}/${o.metadata.name}@${o.metadata.resourceVersion}`);
        }
      }
      return out.sort();
    };
    // first let the last example's rollout settle: nothing moves for a second
    let before = await versions();
    await waitFor(
      'the cluster to settle',
      async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        const now = await versions();
        const settled = JSON.stringify(now) === JSON.stringify(before);
        before = now;
        return settled;
      },
      debug,
    );
    assert.ok((await cluster.registered.resync()) >= 4);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.deepEqual(await versions(), before);
  });
});
