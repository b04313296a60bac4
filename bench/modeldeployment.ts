// Convergence benchmark of the KubeAIRunway controllers (docs/architecture.md, "Quality bars"): N ModelDeployments,
// spread round-robin over the providers, converge to phase Running within 1.5× the time the same API server
// takes to perform the minimum writes a perfect controller needs; a resync at steady state makes zero
// writes and zero reads.
//
//   npm run bench -- modeldeployment [--backend embedded|real|both] [--count 1000] [--concurrency 16] [--runs 3] [--warmup 100] [--timeout 600]
//                                    [--profile DIR] [--providers kaito,dynamo,kuberay,aim]
//                                    [--provider-managers separate|shared] [--core-concurrency N]
//
// Measured run: a fresh embedded API server with our and the external CRDs; the operator process as
// `modelplane dev` runs it (`aim` + `kubeairunway-core` sets; the webhooks set is left out: admission is not
// convergence, and without it the providers default the specs themselves), each provider of PROVIDER_SETS
// as its own Manager and user (as its own process would be), and the upstream stand-in (bench/lib/upstream.ts:
// the Workspace, DynamoGraphDeployment and RayService turn ready, and for the aim provider the
// InferenceService its AIMService gets; one status write each). The clock starts when the providers have
// registered (InferenceProviderConfigs ready), runs from the first create until the Nth ModelDeployment
// is phase Running in the operator's cache. `--provider-managers shared` instead runs every provider in the
// operator's Manager (one cache, one ModelDeployment watch instead of five): not how providers are
// deployed (their own processes, by docs/kubeairunway.md's design), but it shows what the watch fan-out of five
// informers sharing this one thread costs.
//
// Baseline (bench/lib/baseline.ts), per ModelDeployment, on a second fresh server with the same setup and
// nothing watching, C chains in flight, the payloads the controllers wrote in the measured run:
//   1 create ModelDeployment (the user) · 2 core status (provider selection) · 3 the provider's finalizer
//   (merge patch) · 4 apply the upstream object · 5 its ready status (stand-in) · 6 provider status
// = 6 writes; on the aim provider the AIMService's own chain sits between 4 and 6: apply InferenceService,
// its status (stand-in), AIMService status, and the Normal event DefaultConfigNotFound that the AIM seed
// requires on the first reconcile of a service whose namespace has no default runtime config (this one
// has none) = 9 writes. A Hugging Face model on AIM is a custom AIMModel on the AIM base image, which the
// simulated registry (SimRegistry, as under `modelplane dev`) answers; its template needs a node with an
// AMD GPU (created in setup), and its one shared template cache downloads the model: an AIMArtifact, its PVC,
// a check-size Job and a download Job, which the stand-in completes (creating each Job's pod, whose log the
// server's log provider answers with the model's size). Those shared objects' writes (every apply and
// status apply, read back per field manager: bench/lib/shared-chain.ts) run once, in the first AIM chain.
// The aim provider runs on the embedded backend only: a real kube-apiserver asks a kubelet for pod logs. Core and provider are separate field managers (and processes) by docs/kubeairunway.md's
// design, so each needs its own status write; a perfect provider writes once, Running, and no event a
// seed does not ask for.
//
// Last line: modeldeployment: <median converge/baseline> ratio (deployments=N, runs=R, converge-ms=…,
//   baseline-ms=…, cpu-ratio=…, requests/object=…, writes/object=…, baseline-writes/object=…, resync-…),
// the figures as bench/aim.ts explains them. The providers' heartbeat (InferenceProviderConfig status, once
// a minute) is not counted as a resync write.

import { Pods } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { simOperatorObjects } from '@modelplane/sim/cluster';
import { externalCrds } from '@modelplane/sim/crds';
import { SimRegistry, simSourceSize } from '@modelplane/sim/registry';
import { aimCrds } from '../src/apis/aim/index.ts';
import {
  type BuiltinProvider,
  CORE_FIELD_MANAGER,
  InferenceProviderConfigs,
  kubeairunwayCrds,
  type ModelDeployment,
  ModelDeployments,
  providerFieldManager,
  providerFinalizer,
} from '../src/apis/kubeairunway/index.ts';
import { CHECK_SIZE_CONTAINER } from '../src/common/model-storage/jobs.ts';
import { operatorNamespaceFromEnv } from '../src/common/runtime-config/index.ts';
import { aimControllerSet } from '../src/controllers/aim/index.ts';
import { AIM_SERVICE_CONTROLLER } from '../src/controllers/aim/service/names.ts';
import {
  AIMArtifacts,
  AIMModels,
  AIMServices,
  AIMServiceTemplates,
  AIMTemplateCaches,
} from '../src/controllers/aim/shared/kinds.ts';
import { CORE_CONCURRENCY, kubeairunwayCoreSet } from '../src/controllers/kubeairunway/core/index.ts';
import { providerControllerName } from '../src/controllers/kubeairunway/provider/names.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../src/controllers/kubeairunway/providers/index.ts';
import { DEFAULT_POD_NAMESPACE, startOperator } from '../src/controllers/operator.ts';
import { PROVIDER_SETS } from '../src/controllers/sets.ts';
import type { Step } from './lib/baseline.ts';
import { appliedBy, type BenchServer, benchArgs, eventsByObject, progress, waitFor } from './lib/harness.ts';
import { type Operators, runScenario, type Scenario } from './lib/scenario.ts';
import { sharedObjectsChain } from './lib/shared-chain.ts';
import {
  DynamoGraphDeploymentKind,
  InferenceServiceKind,
  JobWithPodKind,
  PersistentVolumeClaimKind,
  RayServiceKind,
  registerUpstreamStandIn,
  STAND_IN,
  type UpstreamKind,
  WorkspaceKind,
} from './lib/upstream.ts';

const NS = 'bench-md';
const OPERATOR_USER = 'modelplane';
const USER = 'bench-user';
const silent = new Logger({}, 'silent');

/** what the user asks for, per provider: the quickstart's deployments, which the CEL rules send there */
const SPECS: Record<BuiltinProvider, ModelDeployment['spec']> = {
  kaito: {
    model: { id: 'google/gemma-3-1b-it-qat-q4_0-gguf' },
    engine: { type: 'llamacpp' },
    image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
    resources: { cpu: '8', memory: '16Gi' },
  },
  dynamo: {
    model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
    engine: { type: 'vllm', contextLength: 8192 },
    resources: { gpu: { count: 1 }, memory: '32Gi' },
  },
  kuberay: {
    model: { id: 'Qwen/Qwen3-32B' },
    engine: { type: 'vllm' },
    resources: { gpu: { count: 2 }, memory: '64Gi' },
  },
  aim: {
    model: { id: 'Qwen/Qwen3-8B' },
    engine: { type: 'vllm' },
    resources: { gpu: { count: 1, type: 'amd.com/gpu' }, memory: '32Gi' },
  },
} as Record<BuiltinProvider, ModelDeployment['spec']>;

// llm-d's upstream object is a plain Deployment, which the stand-in does not turn ready: not benchmarked
const UPSTREAM: Record<BuiltinProvider, UpstreamKind | undefined> = {
  kaito: WorkspaceKind,
  dynamo: DynamoGraphDeploymentKind,
  kuberay: RayServiceKind,
  aim: undefined,
  llmd: undefined,
};

const args = benchArgs({
  providers: 'kaito,dynamo,kuberay,aim',
  'provider-managers': 'separate',
  'core-concurrency': String(CORE_CONCURRENCY),
});
const coreConcurrency = Number(args.extra['core-concurrency']);
if (!Number.isInteger(coreConcurrency) || coreConcurrency < 1)
  throw new Error(`--core-concurrency: expected a positive integer, got "${args.extra['core-concurrency']}"`);
const sharedManager = args.extra['provider-managers'] === 'shared';
if (!sharedManager && args.extra['provider-managers'] !== 'separate')
  throw new Error(`--provider-managers: expected separate or shared, got "${args.extra['provider-managers']}"`);
const providers = args.extra.providers!.split(',').map((p) => p.trim()) as BuiltinProvider[];
if (providers.includes('llmd'))
  throw new Error('--providers: llmd is not benchmarked (its Deployment needs the workload simulators)');
for (const p of providers)
  if (!(p in BUILTIN_PROVIDER_DEFINITIONS))
    throw new Error(
      `--providers: unknown provider "${p}" (known: ${Object.keys(BUILTIN_PROVIDER_DEFINITIONS).join(', ')})`,
    );
if (providers.includes('aim') && args.backends.includes('real'))
  throw new Error(
    '--providers: aim needs the check-size pod log that only the embedded server answers here (a real kube-apiserver asks a kubelet); on --backend real pass --providers kaito,dynamo,kuberay',
  );
const providerOf = (i: number): BuiltinProvider => providers[i % providers.length]!;

async function startOperators(server: BenchServer): Promise<Operators> {
  const common = {
    operatorNamespace: operatorNamespaceFromEnv(process.env),
    podNamespace: DEFAULT_POD_NAMESPACE,
    log: silent,
    // the AIM provider's custom models resolve their base image here, as under `modelplane dev`
    imageRegistry: new SimRegistry(),
  };
  const managers: Manager[] = [];
  const users = new Set<string>();
  const start = async (user: string, sets: Parameters<typeof startOperator>[0]['sets']) => {
    users.add(user);
    managers.push(await startOperator({ ...common, kubeconfig: await server.kubeconfigFor(user), name: user, sets }));
  };
  const core = kubeairunwayCoreSet({ concurrency: coreConcurrency });
  const providerSets = (p: BuiltinProvider) => PROVIDER_SETS.filter((s) => s.name === providerControllerName(p));
  if (sharedManager) await start(OPERATOR_USER, [aimControllerSet(), core, ...providers.flatMap(providerSets)]);
  else {
    await start(OPERATOR_USER, [aimControllerSet(), core]);
    for (const p of providers) await start(`modelplane-${p}`, providerSets(p));
  }
  const standIn = await Manager.create({
    kubeconfig: await server.kubeconfigFor(STAND_IN),
    name: STAND_IN,
    logger: silent,
  });
  // AIM's shared template cache downloads the model: an artifact's PVC and download Job
  const aimCache = providers.includes('aim') ? [JobWithPodKind, PersistentVolumeClaimKind] : [];
  const kinds = [...providers.map((p) => UPSTREAM[p] ?? InferenceServiceKind), ...aimCache];
  registerUpstreamStandIn(standIn, [...new Set(kinds)]);
  await standIn.start();
  // the upstream operators' Deployments, available: the stand-in plays the operators, and the providers
  // are ready only while their operator runs
  const operatorsClient = standIn.client.withFieldManager(STAND_IN);
  for (const o of simOperatorObjects()) {
    await operatorsClient.apply(o);
    if (o.kind === 'Deployment')
      await operatorsClient.applyStatus({ ...o, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } });
  }
  const operator = managers[0]!;
  await waitFor(
    `providers ${providers.join(', ')} registered and ready`,
    async () => {
      const ready = new Set(
        (await operator.cache.list(InferenceProviderConfigs))
          .filter((c) => c.status?.ready === true)
          .map((c) => c.metadata.name),
      );
      return providers.every((p) => ready.has(p));
    },
    60_000,
  );
  progress(`  operator, ${providers.length} provider(s) and stand-in ready`);
  return {
    managers,
    users,
    observer: operator,
    async stop() {
      for (const m of managers) await m.stop();
      await standIn.stop();
    },
  };
}

function deployment(i: number): ModelDeployment {
  return {
    apiVersion: ModelDeployments.apiVersion,
    kind: ModelDeployments.kind,
    metadata: { name: `md-${i}`, namespace: NS, labels: { 'kubeairunway.ai/team': `team-${i % 10}` } },
    spec: structuredClone(SPECS[providerOf(i)]),
  };
}

async function byName<T extends KubeObject>(server: BenchServer, kind: KindRef<T>): Promise<Map<string, T>> {
  return new Map((await server.admin.list(kind, { namespace: NS })).items.map((o) => [o.metadata.name ?? '', o]));
}

/** each deployment's minimum writes, with the bytes the core, the provider and the stand-in wrote */
async function chains(server: BenchServer, created: ModelDeployment[]): Promise<Step[][]> {
  const mds = await byName(server, ModelDeployments);
  const upstreams = new Map<BuiltinProvider, Map<string, KubeObject>>();
  for (const p of new Set(providers)) upstreams.set(p, await byName(server, upstreamKindOf(p)));
  const isvcs = providers.includes('aim')
    ? await byName(server, InferenceServiceKind.kind)
    : new Map<string, KubeObject>();
  // the custom model, its template and the shared cache all AIM deployments use, written once
  const aimShared = providers.includes('aim') ? await sharedObjectsChain(server, NS, AIM_SHARED_KINDS) : [];
  const firstAim = created.findIndex((_, i) => providerOf(i) === 'aim');
  const defaultConfigEvents = providers.includes('aim')
    ? await eventsByObject(server, NS, 'DefaultConfigNotFound')
    : new Map<string, KubeObject>();
  return created.map((user, i) => {
    const name = user.metadata.name ?? '';
    const p = providerOf(i);
    const found = <T>(what: string, o: T | undefined): T => {
      if (!o) throw new Error(`modeldeployment bench: ${what} ${NS}/${name} is missing after convergence`);
      return o;
    };
    const md = found('ModelDeployment', mds.get(name));
    const upstream = found(upstreamKindOf(p).kind, upstreams.get(p)!.get(name));
    const provider = providerFieldManager(p);
    const upstreamReady: Step[] =
      p === 'aim'
        ? [
            ...(i === firstAim ? aimShared : []),
            {
              op: 'apply',
              by: AIM_SERVICE_CONTROLLER,
              obj: appliedBy(found('InferenceService', isvcs.get(name)), AIM_SERVICE_CONTROLLER),
            },
            { op: 'applyStatus', by: STAND_IN, obj: appliedBy(isvcs.get(name)!, STAND_IN, 'status') },
            {
              op: 'applyStatus',
              by: AIM_SERVICE_CONTROLLER,
              obj: appliedBy(upstream, AIM_SERVICE_CONTROLLER, 'status'),
            },
            {
              op: 'create',
              by: AIM_SERVICE_CONTROLLER,
              obj: found('DefaultConfigNotFound event about AIMService', defaultConfigEvents.get(name)),
            },
          ]
        : [{ op: 'applyStatus', by: STAND_IN, obj: appliedBy(upstream, STAND_IN, 'status') }];
    return [
      { op: 'create', by: USER, obj: user },
      { op: 'applyStatus', by: CORE_FIELD_MANAGER, obj: appliedBy(md, CORE_FIELD_MANAGER, 'status') },
      {
        op: 'addFinalizer',
        by: provider,
        kind: ModelDeployments as KindRef<KubeObject>,
        name,
        namespace: NS,
        finalizer: providerFinalizer(p),
      },
      { op: 'apply', by: provider, obj: appliedBy(upstream, provider) },
      ...upstreamReady,
      { op: 'applyStatus', by: provider, obj: appliedBy(md, provider, 'status') },
    ];
  });
}

/** what the AIM chain shares between deployments of one model, owners first */
const AIM_SHARED_KINDS = [
  AIMModels,
  AIMServiceTemplates,
  AIMTemplateCaches,
  AIMArtifacts,
  PersistentVolumeClaimKind.kind,
  JobWithPodKind.kind,
  Pods,
] as KindRef<KubeObject>[];

function upstreamKindOf(p: BuiltinProvider): KindRef<KubeObject> {
  return (UPSTREAM[p]?.kind ?? AIMServices) as KindRef<KubeObject>;
}

const scenario: Scenario<ModelDeployment> = {
  name: 'modeldeployment',
  countKey: 'deployments',
  kind: ModelDeployments,
  isReady: (md) => md.status?.phase === 'Running',
  crds: [...externalCrds(), ...aimCrds(), ...kubeairunwayCrds()],
  namespaces: [NS, DEFAULT_POD_NAMESPACE, operatorNamespaceFromEnv(process.env)],
  // the AIM provider's custom models need a node with an AMD GPU, or their templates are NotAvailable
  setup: async (server) => {
    if (!providers.includes('aim')) return;
    await server.admin.apply({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'mi300x-node', labels: { 'amd.com/gpu.device-id': '74a1' } },
    });
  },
  startOperators,
  object: deployment,
  chains,
  // the check-size Job's pod prints the model's size, as the simulated kubelet does under `modelplane dev`
  podLogs: (_ns, _pod, container) =>
    container === CHECK_SIZE_CONTAINER ? `${simSourceSize(`hf://${SPECS.aim.model?.id}`)}\n` : undefined,
  notResync: (e) => e.resource.startsWith('inferenceproviderconfigs'),
  variant: { 'core-concurrency': String(coreConcurrency), ...(sharedManager ? { 'provider-managers': 'shared' } : {}) },
};

runScenario(scenario, args).catch((err) => {
  console.error(err);
  process.exit(1);
});
