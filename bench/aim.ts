// Convergence benchmark of the AIM controllers (docs/architecture.md, "Quality bars"): N AIMServices converge to
// Running within 1.5× the time the same API server takes to perform the minimum writes a perfect
// controller needs; a resync at steady state makes zero writes and zero reads.
//
//   npm run bench -- aim [--backend embedded|real|both] [--count 1000] [--concurrency 16] [--runs 3] [--warmup 100] [--timeout 600] [--profile DIR]
//                        [--chain-services 40] [--chain-models 4]
//
// Then the real chain (bench/lib/aim-chain.ts): --chain-services AIMServices by image over --chain-models model
// images on the dev cluster with its simulators, nothing pre-readied (discovery, selection, a cache per
// template); the result line adds chain-converged (Running / created), chain-convergence, chain-ms and
// isvc-rollouts/service (the InferenceServices' generation once converged: the goal is 1.00). --chain-services 0 skips it.
//
// Measured run: a fresh embedded API server with the AIM and external CRDs; an AIMRuntimeConfig `default`
// (routing on a Gateway with a path template, label propagation, env), a node with an MI300X and a Ready
// AIMModel whose optimized template (its own, created by the model controller) has a model source; the operator (`startOperator` with the `aim` controller set, its own user) and the upstream
// stand-in (bench/lib/upstream.ts: KServe marks each InferenceService Ready, the gateway accepts each
// HTTPRoute, completes each Job and binds each PVC, one status write each; why not the dev simulators is
// said there). The user creates N AIMServices naming the model, C creates in flight: each selects the
// template and uses one Shared AIMTemplateCache → AIMArtifact → PVC + download Job, created by the first; the time runs from the first create until the Nth
// AIMService is `Running` for its current generation in the operator's cache.
//
// Baseline (bench/lib/baseline.ts), per AIMService, on a second fresh server with the same setup and
// nothing watching, C chains in flight (the same C as the user's creates: the baseline is what the server
// can do, whatever worker count a controller picked), the payloads the controllers wrote in the measured run:
//   1 create AIMService (the user) · 2 its cleanup finalizer · 3 apply InferenceService · 4 apply HTTPRoute
//   (the controller) · 5 InferenceService status · 6 HTTPRoute status (the stand-in) · 7 AIMService status
// = 7 writes/object, plus once (in the first chain) the 9 writes of the shared cache: the cache and its
// finalizer, its artifact, the PVC and the download Job, their two statuses, the artifact's and the cache's status. A
// perfect controller writes the status once, Running, and no events; the measured
// writes/object shows how far the real one is from that.
//
// Last line: aim: <median converge/baseline> ratio (services=N, runs=R, converge-ms=…, baseline-ms=…,
//   cpu-ratio=…, requests/object=…, writes/object=…, baseline-writes/object=7.00, resync-reconciles=…,
//   resync-writes=…, resync-reads=…)
// The ratio is wall-clock time, the bar's measure; cpu-ratio (this process's CPU time over the same two
// spans) is the steadier figure on a shared machine. requests/object counts every request of the operator's
// user during convergence (discovery, watches, writes, events); the stderr output breaks them down, with
// the work queues, the reconciles and the events by reason. --profile writes a CPU profile of each measured
// run. Everything runs in one process, as `modelplane dev` does, so the operator's CPU competes with the API
// server's exactly as it does there.

import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { externalCrds } from '@modelplane/sim/crds';
import { aimCrds } from '../src/apis/aim/index.ts';
import { operatorNamespaceFromEnv } from '../src/common/runtime-config/index.ts';
import { ARTIFACT_CONTROLLER } from '../src/controllers/aim/artifact/controller.ts';
import { CACHE_CONTROLLER } from '../src/controllers/aim/cache/controller.ts';
import { aimControllerSet } from '../src/controllers/aim/index.ts';
import { AIM_SERVICE_CONTROLLER } from '../src/controllers/aim/service/names.ts';
import {
  ARTIFACT_CLEANUP_FINALIZER,
  TEMPLATE_CACHE_CLEANUP_FINALIZER,
} from '../src/controllers/aim/shared/finalizers.ts';
import {
  AIMArtifacts,
  AIMModels,
  type AIMService,
  AIMServices,
  AIMServiceTemplates,
  AIMTemplateCaches,
} from '../src/controllers/aim/shared/kinds.ts';
import { DEFAULT_POD_NAMESPACE, startOperator } from '../src/controllers/operator.ts';
import { aimChainFigures } from './lib/aim-chain.ts';
import type { Step } from './lib/baseline.ts';
import { appliedBy, type BenchServer, benchArgs, progress, waitFor } from './lib/harness.ts';
import { type Operators, runScenario, type Scenario } from './lib/scenario.ts';
import { smokeOr } from './lib/smoke.ts';
import {
  HTTPRouteKind,
  InferenceServiceKind,
  JobKind,
  PersistentVolumeClaimKind,
  registerUpstreamStandIn,
  STAND_IN,
} from './lib/upstream.ts';

const NS = 'bench-aim';
const GATEWAY_NS = 'gateways';
const MODEL = 'qwen3-8b';
const OPERATOR_USER = 'modelplane';
const USER = 'bench-user';
const silent = new Logger({}, 'silent');

async function setup(server: BenchServer): Promise<void> {
  const { admin } = server;
  await admin.apply({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'inference-gateway', namespace: GATEWAY_NS },
    spec: {
      gatewayClassName: 'bench',
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }],
    },
  });
  await admin.apply({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMRuntimeConfig',
    metadata: { name: 'default', namespace: NS },
    spec: {
      routing: {
        enabled: true,
        gatewayRef: { name: 'inference-gateway', namespace: GATEWAY_NS },
        pathTemplate: "/{.metadata.namespace}/{.metadata.labels['project']}/{.metadata.name}",
        requestTimeout: '120s',
      },
      labelPropagation: { enabled: true, match: ['org.example/*'] },
      env: [{ name: 'VLLM_LOGGING_LEVEL', value: 'INFO' }],
    },
  });
  // the whole catalogue chain: a model with its weights' source and an optimized MI300X template (no
  // discovery needed), a node with that GPU, so every service selects the template and shares one cache
  await admin.apply({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'mi300x-node', labels: { 'amd.com/gpu.device-id': '74a1' } },
  });
  await admin.apply({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMModel',
    metadata: { name: MODEL, namespace: NS },
    spec: {
      image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5',
      modelSources: [{ modelId: 'Qwen/Qwen3-8B', sourceUri: 'hf://Qwen/Qwen3-8B', size: '16Gi' }],
      custom: { type: 'optimized', hardware: { gpu: { requests: 1, model: 'MI300X' } } },
    },
  });
}

async function startOperators(server: BenchServer): Promise<Operators> {
  const operatorNamespace = operatorNamespaceFromEnv(process.env);
  const operator = await startOperator({
    kubeconfig: await server.kubeconfigFor(OPERATOR_USER),
    name: OPERATOR_USER,
    sets: [aimControllerSet()],
    operatorNamespace,
    podNamespace: DEFAULT_POD_NAMESPACE,
    log: silent,
  });
  const standIn = await Manager.create({
    kubeconfig: await server.kubeconfigFor(STAND_IN),
    name: STAND_IN,
    logger: silent,
  });
  registerUpstreamStandIn(standIn, [InferenceServiceKind, HTTPRouteKind, JobKind, PersistentVolumeClaimKind]);
  await standIn.start();
  // the model controller makes the model Ready before the clock starts: every service then resolves it
  await waitFor(
    `AIMModel ${NS}/${MODEL} Ready`,
    async () => (await operator.cache.get(AIMModels, MODEL, NS))?.status?.status === 'Ready',
    60_000,
  );
  await waitFor(
    `the model's template Ready`,
    async () =>
      (await operator.cache.list(AIMServiceTemplates, { namespace: NS })).some((t) => t.status?.status === 'Ready'),
    60_000,
  );
  progress(`  operator, stand-in and model ready`);
  return {
    managers: [operator],
    users: new Set([OPERATOR_USER]),
    observer: operator,
    async stop() {
      await operator.stop();
      await standIn.stop();
    },
  };
}

function service(i: number): AIMService {
  return {
    apiVersion: AIMServices.apiVersion,
    kind: AIMServices.kind,
    metadata: {
      name: `svc-${i}`,
      namespace: NS,
      labels: { project: `project-${i % 10}`, 'org.example/cost-center': 'eng-ml' },
    },
    spec: {
      model: { name: MODEL },
      replicas: 1,
      resources: { requests: { cpu: '4', memory: '32Gi', 'amd.com/gpu': '1' }, limits: { 'amd.com/gpu': '1' } },
    },
  } as AIMService;
}

async function byName<T extends KubeObject>(server: BenchServer, kind: KindRef<T>): Promise<Map<string, T>> {
  return new Map((await server.admin.list(kind, { namespace: NS })).items.map((o) => [o.metadata.name ?? '', o]));
}

/** the seven writes of each service, with the bytes the controller and the stand-in wrote */
async function chains(server: BenchServer, created: AIMService[]): Promise<Step[][]> {
  const services = await byName(server, AIMServices);
  const isvcs = await byName(server, InferenceServiceKind.kind);
  const routes = await byName(server, HTTPRouteKind.kind);
  const sharedCacheChain = await cacheChain(server);
  return created.map((user) => {
    const name = user.metadata.name ?? '';
    const found = (what: string, o: KubeObject | undefined) => {
      if (!o) throw new Error(`aim bench: ${what} ${NS}/${name} is missing after convergence`);
      return o;
    };
    const svc = found('AIMService', services.get(name));
    const isvc = found('InferenceService', isvcs.get(name));
    const route = found('HTTPRoute', routes.get(name));
    return [
      { op: 'create', by: USER, obj: user },
      {
        op: 'addFinalizer',
        by: AIM_SERVICE_CONTROLLER,
        kind: AIMServices as KindRef<KubeObject>,
        name,
        namespace: NS,
        finalizer: TEMPLATE_CACHE_CLEANUP_FINALIZER,
      },
      ...(user === created[0] ? sharedCacheChain : []),
      { op: 'apply', by: AIM_SERVICE_CONTROLLER, obj: appliedBy(isvc, AIM_SERVICE_CONTROLLER) },
      { op: 'apply', by: AIM_SERVICE_CONTROLLER, obj: appliedBy(route, AIM_SERVICE_CONTROLLER) },
      { op: 'applyStatus', by: STAND_IN, obj: appliedBy(isvc, STAND_IN, 'status') },
      { op: 'applyStatus', by: STAND_IN, obj: appliedBy(route, STAND_IN, 'status') },
      { op: 'applyStatus', by: AIM_SERVICE_CONTROLLER, obj: appliedBy(svc, AIM_SERVICE_CONTROLLER, 'status') },
    ];
  });
}

/**
 * The writes that bring the one Shared cache all services use to Ready, once, in the first service's
 * chain: the cache (by the service controller) and its finalizer, its artifact, the artifact's PVC and download Job, their
 * statuses (the stand-in), the artifact's and the cache's status.
 */
async function cacheChain(server: BenchServer): Promise<Step[]> {
  const [cache] = (await server.admin.list(AIMTemplateCaches, { namespace: NS })).items;
  const [artifact] = (await server.admin.list(AIMArtifacts, { namespace: NS })).items;
  if (!cache || !artifact) throw new Error('aim bench: the shared cache or its artifact is missing after convergence');
  const [pvc] = [...(await byName(server, PersistentVolumeClaimKind.kind)).values()];
  const [job] = [...(await byName(server, JobKind.kind)).values()];
  if (!pvc || !job) throw new Error("aim bench: the artifact's PVC or download Job is missing after convergence");
  return [
    { op: 'apply', by: AIM_SERVICE_CONTROLLER, obj: appliedBy(cache, AIM_SERVICE_CONTROLLER) },
    {
      op: 'addFinalizer',
      by: CACHE_CONTROLLER,
      kind: AIMTemplateCaches as KindRef<KubeObject>,
      name: cache.metadata.name ?? '',
      namespace: NS,
      finalizer: ARTIFACT_CLEANUP_FINALIZER,
    },
    { op: 'apply', by: CACHE_CONTROLLER, obj: appliedBy(artifact, CACHE_CONTROLLER) },
    { op: 'apply', by: ARTIFACT_CONTROLLER, obj: appliedBy(pvc, ARTIFACT_CONTROLLER) },
    { op: 'apply', by: ARTIFACT_CONTROLLER, obj: appliedBy(job, ARTIFACT_CONTROLLER) },
    { op: 'applyStatus', by: STAND_IN, obj: appliedBy(pvc, STAND_IN, 'status') },
    { op: 'applyStatus', by: STAND_IN, obj: appliedBy(job, STAND_IN, 'status') },
    { op: 'applyStatus', by: ARTIFACT_CONTROLLER, obj: appliedBy(artifact, ARTIFACT_CONTROLLER, 'status') },
    { op: 'applyStatus', by: CACHE_CONTROLLER, obj: appliedBy(cache, CACHE_CONTROLLER, 'status') },
  ];
}

const scenario: Scenario<AIMService> = {
  name: 'aim',
  countKey: 'services',
  kind: AIMServices,
  isReady: (s) => s.status?.status === 'Running' && s.status.observedGeneration === s.metadata.generation,
  crds: [...externalCrds(), ...aimCrds()],
  namespaces: [NS, GATEWAY_NS, DEFAULT_POD_NAMESPACE, operatorNamespaceFromEnv(process.env)],
  setup,
  startOperators,
  object: service,
  chains,
  // the real chain: services by image over several models, nothing pre-readied (bench/lib/aim-chain.ts)
  after: (args) =>
    Number(args.extra['chain-services']) > 0
      ? aimChainFigures({
          services: Number(args.extra['chain-services']),
          models: Number(args.extra['chain-models']),
          timeoutMs: args.timeoutMs,
        })
      : Promise.resolve({}),
};

runScenario(scenario, benchArgs({ 'chain-services': smokeOr('40', '2'), 'chain-models': smokeOr('4', '1') })).catch(
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
