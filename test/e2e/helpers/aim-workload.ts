// A batch of AIMServices in one namespace that the reliability tests create, change, delete and recreate
// while faults hit the controller, with the state every service must end in: Running at its generation,
// exactly one InferenceService and one HTTPRoute controlled by it, carrying its latest replicas and path.

import { isNotFound, type KubeClient, Pods } from '@modelplane/runtime/client';
import { type KindRef, type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { AIMModels, type AIMService, AIMServices } from '../../../src/controllers/aim/shared/kinds.ts';
import { waitFor } from '../../helpers/wait.ts';
import { childProblems, childrenByOwner, nameProblems, retrying } from './convergence.ts';
import { between } from './process-chaos.ts';

type Json = Record<string, any>;
const InferenceServices = kindRef('serving.kserve.io/v1beta1', 'InferenceService') as KindRef<
  KubeObject & { spec: Json }
>;
const HTTPRoutes = kindRef('gateway.networking.k8s.io/v1', 'HTTPRoute') as KindRef<KubeObject & { spec: Json }>;

export const AIM_MODEL = 'qwen3-8b';
const AIM_IMAGE = 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5';

interface ServiceSpec {
  replicas: number;
  project: string;
}

/** what every namespace of the batch needs first: a routed runtime config and a model */
export async function installAimNamespace(admin: KubeClient, namespace: string): Promise<void> {
  await admin.apply({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMRuntimeConfig',
    metadata: { name: 'default', namespace },
    spec: {
      routing: {
        enabled: true,
        gatewayRef: { name: 'inference-gateway', namespace: 'gateways' },
        pathTemplate: "/{.metadata.namespace}/{.metadata.labels['project']}/{.metadata.name}",
      },
    },
  });
  await admin.apply({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMModel',
    metadata: { name: AIM_MODEL, namespace },
    // served directly from its image (docs/aim.md, "Models"): the batches are about each service's own
    // children under faults, and a template of the catalogue would ask every predictor for an MI300X
    // (the simulated cluster has 16)
    spec: { image: AIM_IMAGE, discovery: { createServiceTemplates: false } },
  });
}

/** is the namespace's model Ready? (services wait for it; tests start their faults only after it is) */
export async function aimModelReady(admin: KubeClient, namespace: string): Promise<boolean> {
  const model = await admin.getOrUndefined(AIMModels, AIM_MODEL, namespace);
  return (model?.status as { status?: string } | undefined)?.status === 'Ready';
}

/** is the InferenceService `name` Ready (its Ready condition True)? */
export async function inferenceServiceReady(admin: KubeClient, namespace: string, name: string): Promise<boolean> {
  const isvc = await admin.getOrUndefined(InferenceServices, name, namespace);
  const conditions = (isvc?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions;
  return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export class AimWorkload {
  /** name → the spec last written (absent: deleted) */
  readonly expected = new Map<string, ServiceSpec>();
  /** recreations waiting for the operator to finish the deletion they follow: name → why not yet */
  private readonly recreating = new Map<string, string>();
  private version = 0;

  constructor(
    private readonly admin: KubeClient,
    readonly namespace: string,
  ) {}

  private async write(name: string, spec: ServiceSpec): Promise<void> {
    this.expected.set(name, spec);
    await retrying(`apply AIMService ${this.namespace}/${name}`, () =>
      this.admin.apply({
        apiVersion: 'aim.eai.amd.com/v1alpha1',
        kind: 'AIMService',
        metadata: { name, namespace: this.namespace, labels: { project: spec.project } },
        spec: { model: { name: AIM_MODEL }, replicas: spec.replicas },
      }),
    );
  }

  create(name: string): Promise<void> {
    return this.write(name, { replicas: 1, project: 'p0' });
  }

  /** a new replica count and a new route path (the project label) */
  change(name: string): Promise<void> {
    const was = this.expected.get(name);
    if (!was) return Promise.resolve();
    this.version++;
    return this.write(name, { replicas: was.replicas === 1 ? 2 : 1, project: `p${this.version}` });
  }

  async remove(name: string): Promise<void> {
    this.expected.delete(name);
    await retrying(`delete AIMService ${this.namespace}/${name}`, async () => {
      try {
        await this.admin.delete(AIMServices, name, this.namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }

  /**
   * delete and create again under the same name: the new service (new uid) must get children of its own.
   * An AIMService carries a cleanup finalizer (docs/aim.md, "Finalizers"): until the operator has removed
   * it, an apply of the same name would update the old, terminating object. So the create waits, in the
   * background (the operator may be down meanwhile), and `problems()` reports it until it is done.
   */
  async recreate(name: string): Promise<void> {
    const old = await retrying(`get AIMService ${this.namespace}/${name}`, () =>
      this.admin.getOrUndefined(AIMServices, name, this.namespace),
    );
    await this.remove(name);
    this.recreating.set(name, 'waiting for the deleted one to go');
    void (async () => {
      try {
        if (old)
          await waitFor(
            `AIMService ${this.namespace}/${name} (uid ${old.metadata.uid}) deleted`,
            async () =>
              (await this.admin.getOrUndefined(AIMServices, name, this.namespace))?.metadata.uid !== old.metadata.uid,
            { timeoutMs: 600_000, intervalMs: 200 },
          );
        await this.create(name);
        this.recreating.delete(name);
      } catch (err) {
        this.recreating.set(name, `recreating failed: ${(err as Error).message}`);
      }
    })();
  }

  /**
   * `count` creates, then in random order changes of about half, deletes of a sixth, recreations of an
   * eighth and a second change of a quarter; every op sees the state the ones before it left.
   */
  plan(prefix: string, count: number, rng: () => number): Array<() => Promise<void>> {
    const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    const pick = (n: number) => [...names].sort(() => rng() - 0.5).slice(0, n);
    const ops: Array<() => Promise<void>> = names.map((n) => () => this.create(n));
    const later: Array<() => Promise<void>> = [
      ...pick(Math.ceil(count / 2)).map((n) => () => this.change(n)),
      ...pick(Math.ceil(count / 6)).map((n) => () => this.remove(n)),
      ...pick(Math.ceil(count / 8)).map((n) => () => this.recreate(n)),
      ...pick(Math.ceil(count / 4)).map((n) => () => this.change(n)),
    ];
    for (let i = later.length - 1; i > 0; i--) {
      const j = between(rng, 0, i);
      [later[i], later[j]] = [later[j]!, later[i]!];
    }
    return [...ops, ...later];
  }

  /** a service's status, its children's and its predictor pods', for the message of a wait that timed out */
  async inspect(name: string): Promise<string> {
    const [s, isvc, route, pods] = await Promise.all([
      this.admin.getOrUndefined(AIMServices, name, this.namespace),
      this.admin.getOrUndefined(InferenceServices, name, this.namespace),
      this.admin.getOrUndefined(HTTPRoutes, name, this.namespace),
      this.admin.list(Pods, { namespace: this.namespace, labelSelector: `serving.kserve.io/inferenceservice=${name}` }),
    ]);
    const brief = (o: (KubeObject & { status?: unknown }) | undefined) =>
      o
        ? {
            uid: o.metadata.uid,
            rv: o.metadata.resourceVersion,
            generation: o.metadata.generation,
            owner: o.metadata.ownerReferences?.[0]?.uid,
            status: o.status,
          }
        : 'absent';
    const pod = (p: KubeObject & { spec?: Json; status?: Json }) => ({
      name: p.metadata.name,
      node: p.spec?.nodeName,
      deleting: p.metadata.deletionTimestamp,
      phase: p.status?.phase,
      conditions: (p.status?.conditions ?? []).map(
        (c: Json) => `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}`,
      ),
    });
    return JSON.stringify({
      service: brief(s),
      inferenceService: brief(isvc),
      httpRoute: brief(route),
      pods: pods.items.map(pod),
    });
  }

  /** everything still wrong in the namespace (empty: converged) */
  async problems(): Promise<string[]> {
    const ns = this.namespace;
    const waiting = [...this.recreating].map(([name, why]) => `AIMService ${name}: recreation pending (${why})`);
    if (waiting.length > 0) return waiting;
    const services = (await this.admin.list(AIMServices, { namespace: ns })).items;
    const [isvcs, routes] = await Promise.all([
      childrenByOwner(this.admin, InferenceServices, ns),
      childrenByOwner(this.admin, HTTPRoutes, ns),
    ]);
    const problems = [
      ...nameProblems('AIMService', services, this.expected.keys()),
      ...childProblems(services, isvcs, 'InferenceService'),
      ...childProblems(services, routes, 'HTTPRoute'),
    ];
    for (const s of services)
      problems.push(
        ...this.serviceProblems(s, isvcs.get(s.metadata.uid ?? '')?.[0], routes.get(s.metadata.uid ?? '')?.[0]),
      );
    return problems;
  }

  private serviceProblems(
    s: AIMService,
    isvc: (KubeObject & { spec?: Json }) | undefined,
    route: (KubeObject & { spec?: Json }) | undefined,
  ): string[] {
    const name = s.metadata.name ?? '';
    const want = this.expected.get(name);
    if (!want) return [];
    const out: string[] = [];
    const path = `/${this.namespace}/${want.project}/${name}`;
    if (s.status?.status !== 'Running') {
      const why = (s.status?.conditions ?? [])
        .filter((c) => c.status !== 'True')
        .map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
      out.push(`AIMService ${name}: status ${s.status?.status ?? '<none>'} (${why.join('; ')})`);
    }
    if (s.status?.observedGeneration !== s.metadata.generation)
      out.push(
        `AIMService ${name}: observedGeneration ${s.status?.observedGeneration} of generation ${s.metadata.generation}`,
      );
    if (s.status?.routing?.path !== path)
      out.push(`AIMService ${name}: status.routing.path ${s.status?.routing?.path} instead of ${path}`);
    if (isvc && isvc.spec?.predictor?.minReplicas !== want.replicas)
      out.push(
        `InferenceService ${name}: minReplicas ${isvc.spec?.predictor?.minReplicas} instead of ${want.replicas}`,
      );
    const routePath = route?.spec?.rules?.[0]?.matches?.[0]?.path?.value;
    if (route && routePath !== path) out.push(`HTTPRoute ${name}: path ${routePath} instead of ${path}`);
    return out;
  }
}
