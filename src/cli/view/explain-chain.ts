// Why an AIMService is not Running, in one paragraph (docs/aim.md, "Why is this not Running"): the walk down
// its chain, service → model → template → cache → artifact, to the first object that is not ready, from the
// conditions each controller already wrote. Pure: `modelplane explain` feeds it objects read through a client,
// the dashboard's AIMService page the objects its informers hold, so both say the same thing.
import type { KubeObject } from '@modelplane/runtime/meta';

export type ChainObject = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };
type Obj = ChainObject;
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** the objects of one service's chain, as far as they exist */
export interface ServiceChain {
  service: Obj;
  model?: Obj;
  template?: Obj;
  cache?: Obj;
  artifacts: Obj[];
}

/** reads the chain's objects by kind (AIMModel, AIMClusterModel, …), name and namespace (none: cluster-scoped) */
export interface ChainLookup {
  get(kind: string, name: string, namespace?: string): Obj | undefined;
  /** every object of the kind (in the namespace, for namespaced kinds) */
  list(kind: string, namespace?: string): Obj[];
}

type Ref = { name: string; namespace?: string };
const ref = (r: unknown): Ref | undefined =>
  typeof (r as Ref | undefined)?.name === 'string' && (r as Ref).name ? (r as Ref) : undefined;

/**
 * the model a service by image waits for, as the service controller picks it: a namespaced model with the
 * image before a cluster one, a Ready one first, then by name
 */
function modelByImage(image: string, namespace: string, find: ChainLookup): Obj | undefined {
  const withImage = (list: Obj[]) =>
    list
      .filter((m) => m.spec?.image === image)
      .sort(
        (a, b) =>
          Number(isReady(b)) - Number(isReady(a)) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
      );
  const own = withImage(find.list('AIMModel', namespace));
  return own[0] ?? withImage(find.list('AIMClusterModel'))[0];
}

/** the chain of `service` as far as `find` has its links: the links its status resolved, else its spec names */
export function chainOf(service: Obj, find: ChainLookup): ServiceChain {
  const namespace = service.metadata.namespace ?? '';
  const st = service.status ?? {};
  const modelRef =
    ref(st.resolvedModel) ?? ref({ name: service.spec?.model?.name ?? service.spec?.model?.ref, namespace });
  const image = service.spec?.model?.image;
  const model = modelRef
    ? (find.get('AIMModel', modelRef.name, namespace) ?? find.get('AIMClusterModel', modelRef.name))
    : typeof image === 'string' && image
      ? modelByImage(image, namespace, find)
      : undefined;
  const tplRef = ref(st.resolvedTemplate) ?? ref({ name: service.spec?.template?.name, namespace });
  const template = tplRef
    ? (find.get('AIMServiceTemplate', tplRef.name, namespace) ?? find.get('AIMClusterServiceTemplate', tplRef.name))
    : undefined;
  const cacheName = ref(st.cache?.templateCacheRef)?.name;
  const cache = cacheName ? find.get('AIMTemplateCache', cacheName, namespace) : undefined;
  const artifacts: Obj[] = [];
  for (const a of Object.values((cache?.status?.artifacts ?? {}) as Record<string, { name?: unknown }>)) {
    const art = typeof a?.name === 'string' && a.name ? find.get('AIMArtifact', a.name, namespace) : undefined;
    if (art) artifacts.push(art);
  }
  return {
    service,
    ...(model ? { model } : {}),
    ...(template ? { template } : {}),
    ...(cache ? { cache } : {}),
    artifacts,
  };
}

const conditions = (o: Obj | undefined): Condition[] => (o?.status?.conditions as Condition[] | undefined) ?? [];
const where = (o: Obj) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** the condition that says why `o` is not ready: its first False component, else its first Unknown, else Ready */
export function firstProblem(o: Obj | undefined): Condition | undefined {
  const all = conditions(o);
  const components = all.filter((c) => c.type !== 'Ready' && c.type.endsWith('Ready'));
  // a pod's condition names the real cause (FailedScheduling, a pull refused and the Secret to add, an OOM
  // kill) and what to do, where the Job or InferenceService condition beside it only relays or says "under way"
  const failed =
    components.find((c) => c.status === 'False' && c.type.endsWith('PodsReady')) ??
    components.find((c) => c.status === 'False') ??
    all.find((c) => c.type === 'AuthValid' && c.status === 'False');
  const waiting =
    components.find((c) => c.status === 'Unknown' && c.type.endsWith('PodsReady')) ??
    components.find((c) => c.status === 'Unknown');
  const ready = all.find((c) => c.type === 'Ready');
  if (failed) return failed;
  if (waiting) return waiting;
  return ready && ready.status !== 'True' ? ready : undefined;
}

const describe = (o: Obj, c: Condition) =>
  `${where(o)} (${o.status?.status ?? 'no status yet'}) has ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? '(no message)'}`.replace(
    /\s+:/,
    ':',
  );

function isReady(o: Obj | undefined): boolean {
  return o?.status?.status === 'Ready' || conditions(o).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** the chain's component on the service that points at an upstream object, in walking order */
const STEPS: ReadonlyArray<{ condition: string; next: (c: ServiceChain) => Obj[] }> = [
  { condition: 'ModelReady', next: (c) => (c.model ? [c.model] : []) },
  { condition: 'TemplateReady', next: (c) => (c.template ? [c.template] : []) },
  { condition: 'CacheReady', next: (c) => [...(c.cache ? [c.cache] : []), ...c.artifacts] },
];

/**
 * Of one link's objects in walking order (a cache, then its artifacts), the one whose condition says why: a
 * failure before a wait, and the deepest of either (a cache waiting on an artifact, or failing because it
 * failed, says less than the artifact itself).
 */
function deepestCause(objs: readonly Obj[]): { o: Obj; p: Condition; at: number } | undefined {
  let failed: { o: Obj; p: Condition; at: number } | undefined;
  let waiting: typeof failed;
  for (const [at, o] of objs.entries()) {
    if (isReady(o)) continue;
    const p = firstProblem(o);
    if (p?.status === 'False') failed = { o, p, at };
    else if (p) waiting = { o, p, at };
  }
  return failed ?? waiting;
}

/** one paragraph: where the chain stops and why */
export function explainChain(chain: ServiceChain): string {
  const s = chain.service;
  const state = s.status?.status ?? 'not reconciled yet';
  if (state === 'Running' && !firstProblem(s)) return `${where(s)} is Running: every link of its chain is ready.`;
  const path: string[] = [where(s)];
  for (const step of STEPS) {
    const c = conditions(s).find((x) => x.type === step.condition);
    if (!c || c.status === 'True') {
      for (const o of step.next(chain)) path.push(where(o));
      continue;
    }
    // the service waits on this link: go down it to the object that says why
    const links = step.next(chain);
    const cause = deepestCause(links);
    const walked = [...path, ...links.slice(0, cause ? cause.at + 1 : links.length).map(where)];
    if (cause) return `${where(s)} is ${state}. Walking ${walked.join(' → ')}: ${describe(cause.o, cause.p)}.`;
    return `${where(s)} is ${state}. Walking ${walked.join(' → ')}: ${describe(s, c)}.`;
  }
  const own = firstProblem(s);
  if (own) return `${where(s)} is ${state}. Its model, template and cache are ready; ${describe(s, own)}.`;
  return `${where(s)} is ${state}, and no condition names a problem yet (the controller may not have reconciled it).`;
}
