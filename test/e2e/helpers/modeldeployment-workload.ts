// A batch of ModelDeployments in one namespace that the reliability tests create, scale and delete while
// faults hit the KubeAIRunway core and the KAITO and Dynamo providers, with the state each must end in:
// Running on the provider the selection rules pick, the provider's finalizer on it, the Ready condition at
// its generation, and exactly one upstream object controlled by it (a Workspace carrying its latest replica
// count, or a DynamoGraphDeployment); a deleted deployment is gone, finalizer and upstream object with it.

import { isNotFound, type KubeClient } from '@modelplane/runtime/client';
import { type KindRef, type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { type ModelDeployment, ModelDeployments, providerFinalizer } from '../../../src/apis/kubeairunway/index.ts';
import { childProblems, childrenByOwner, nameProblems, retrying } from './convergence.ts';
import { between } from './process-chaos.ts';

type Json = Record<string, any>;
type Provider = 'kaito' | 'dynamo';
const UPSTREAM: Record<Provider, KindRef<KubeObject & Json>> = {
  kaito: kindRef('kaito.sh/v1beta1', 'Workspace'),
  dynamo: kindRef('nvidia.com/v1alpha1', 'DynamoGraphDeployment'),
};

interface DeploymentSpec {
  provider: Provider;
  replicas: number;
}

/** the selection rules send llama.cpp on CPU to KAITO and vLLM on one NVIDIA GPU to Dynamo */
function specFor(want: DeploymentSpec): Json {
  if (want.provider === 'dynamo')
    return {
      model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    };
  return {
    model: { id: 'google/gemma-3-1b-it-qat-q4_0-gguf' },
    engine: { type: 'llamacpp' },
    image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
    scaling: { replicas: want.replicas },
  };
}

export class ModelDeploymentWorkload {
  /** name → the spec last written (absent: deleted) */
  readonly expected = new Map<string, DeploymentSpec>();

  constructor(
    private readonly admin: KubeClient,
    readonly namespace: string,
  ) {}

  private async write(name: string, want: DeploymentSpec): Promise<void> {
    this.expected.set(name, want);
    await retrying(`apply ModelDeployment ${this.namespace}/${name}`, () =>
      this.admin.apply({
        apiVersion: ModelDeployments.apiVersion,
        kind: ModelDeployments.kind,
        metadata: { name, namespace: this.namespace },
        spec: specFor(want),
      }),
    );
  }

  create(name: string, provider: Provider): Promise<void> {
    return this.write(name, { provider, replicas: 1 });
  }

  /** a new replica count (KAITO's: Dynamo deployments hold a GPU per replica, and the pool is small) */
  scale(name: string): Promise<void> {
    const was = this.expected.get(name);
    if (was?.provider !== 'kaito') return Promise.resolve();
    return this.write(name, { ...was, replicas: was.replicas === 1 ? 2 : 1 });
  }

  async remove(name: string): Promise<void> {
    this.expected.delete(name);
    await retrying(`delete ModelDeployment ${this.namespace}/${name}`, async () => {
      try {
        await this.admin.delete(ModelDeployments, name, this.namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }

  /** deletes every deployment still expected */
  removeAll(): Array<() => Promise<void>> {
    return [...this.expected.keys()].map((n) => () => this.remove(n));
  }

  /**
   * `count` creates (every sixth on Dynamo, the rest on KAITO), then in random order a scale of about half,
   * deletes of a sixth and a second scale of a quarter; every op sees the state the ones before it left.
   */
  plan(prefix: string, count: number, rng: () => number): Array<() => Promise<void>> {
    const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    const pick = (n: number) => [...names].sort(() => rng() - 0.5).slice(0, n);
    const ops: Array<() => Promise<void>> = names.map((n, i) => () => this.create(n, i % 6 === 0 ? 'dynamo' : 'kaito'));
    const later: Array<() => Promise<void>> = [
      ...pick(Math.ceil(count / 2)).map((n) => () => this.scale(n)),
      ...pick(Math.ceil(count / 6)).map((n) => () => this.remove(n)),
      ...pick(Math.ceil(count / 4)).map((n) => () => this.scale(n)),
    ];
    for (let i = later.length - 1; i > 0; i--) {
      const j = between(rng, 0, i);
      [later[i], later[j]] = [later[j]!, later[i]!];
    }
    return [...ops, ...later];
  }

  /** a deployment's metadata and status and its upstream object's, for the message of a wait that timed out */
  async inspect(name: string): Promise<string> {
    const want = this.expected.get(name);
    const [md, upstream] = await Promise.all([
      this.admin.getOrUndefined(ModelDeployments, name, this.namespace),
      want ? this.admin.getOrUndefined(UPSTREAM[want.provider], name, this.namespace) : undefined,
    ]);
    const brief = (o: (KubeObject & { status?: unknown }) | undefined) =>
      o
        ? {
            uid: o.metadata.uid,
            rv: o.metadata.resourceVersion,
            generation: o.metadata.generation,
            finalizers: o.metadata.finalizers,
            deletionTimestamp: o.metadata.deletionTimestamp,
            owner: o.metadata.ownerReferences?.[0]?.uid,
            status: o.status,
          }
        : 'absent';
    return JSON.stringify({ modelDeployment: brief(md), upstream: brief(upstream) });
  }

  /** everything still wrong in the namespace (empty: converged) */
  async problems(): Promise<string[]> {
    const ns = this.namespace;
    const mds = (await this.admin.list(ModelDeployments, { namespace: ns })).items;
    const [workspaces, dgds] = await Promise.all([
      childrenByOwner(this.admin, UPSTREAM.kaito, ns),
      childrenByOwner(this.admin, UPSTREAM.dynamo, ns),
    ]);
    const on = (p: Provider) => mds.filter((m) => this.expected.get(m.metadata.name ?? '')?.provider === p);
    const problems = [
      ...nameProblems('ModelDeployment', mds, this.expected.keys()),
      ...childProblems(on('kaito'), workspaces, 'Workspace'),
      ...childProblems(on('dynamo'), dgds, 'DynamoGraphDeployment'),
    ];
    for (const md of mds) problems.push(...this.deploymentProblems(md, workspaces.get(md.metadata.uid ?? '')?.[0]));
    return problems;
  }

  private deploymentProblems(md: ModelDeployment, workspace: (KubeObject & Json) | undefined): string[] {
    const name = md.metadata.name ?? '';
    const want = this.expected.get(name);
    if (!want)
      return md.metadata.deletionTimestamp
        ? [`ModelDeployment ${name}: still terminating (finalizers ${md.metadata.finalizers?.join(', ')})`]
        : [];
    const out: string[] = [];
    const ready = md.status?.conditions?.find((c) => c.type === 'Ready');
    if (md.status?.provider?.name !== want.provider)
      out.push(
        `ModelDeployment ${name}: provider ${md.status?.provider?.name ?? '<none>'} instead of ${want.provider}`,
      );
    if (md.status?.phase !== 'Running')
      out.push(`ModelDeployment ${name}: phase ${md.status?.phase ?? '<none>'} (${md.status?.message ?? ''})`);
    if (ready?.status !== 'True' || ready.observedGeneration !== md.metadata.generation)
      out.push(
        `ModelDeployment ${name}: Ready ${ready?.status} at generation ${ready?.observedGeneration} of ${md.metadata.generation}`,
      );
    if (!md.metadata.finalizers?.includes(providerFinalizer(want.provider)))
      out.push(`ModelDeployment ${name}: no ${want.provider} finalizer`);
    if (workspace && workspace.resource?.count !== want.replicas)
      out.push(`Workspace ${name}: resource.count ${workspace.resource?.count} instead of ${want.replicas}`);
    return out;
  }
}
