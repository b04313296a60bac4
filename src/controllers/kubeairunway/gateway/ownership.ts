// Who serves a model name on a Gateway (docs/kubeairunway.md, "Model names on a Gateway"), pure. Requests
// are routed by the name alone, so two deployments answering to one name would split or steal each other's
// traffic silently. The first claimant keeps it: among the deployments that claim the name on the same
// Gateway and have a ready pod, one that already holds the route wins (its status says so, or this
// controller routed it moments ago and the status write is still to come), then the oldest, then
// namespace/name. Others get ModelNameConflict, unless they and the owner all set spec.gateway.weight in
// one namespace: then the owner's route carries one weighted backend per sharer.
import { CONDITION_GATEWAY_READY, type ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import { routedModelName } from './route.ts';

/** a deployment that answers to the name, and how many ready pods it has behind its Service */
export interface Claim {
  md: ModelDeployment;
  readyPods: number;
}

export type Ownership =
  | { role: 'owner'; sharers: Claim[] }
  | { role: 'sharer'; owner: ModelDeployment }
  | { role: 'conflict'; owner: ModelDeployment };

const HOLDING_REASONS = new Set(['HTTPRouteAccepted', 'HTTPRoutePending']);
/**
 * an owner whose pods are gone for a while (a restart, a node drain) keeps its claim: status.gateway stays
 * under these reasons (plan.ts) and another claimant serves the name meanwhile; when the owner has a ready
 * pod again both hold it and the older keeps it (one rule for both sides, so they never flip), so a pod
 * restart does not hand a name to a later deployment for good
 */
// likewise an owner whose Gateway went (deleted, unlabelled): when it is back, the owner still holds the name,
// not an older deployment that had lost it there (a loser's status.gateway carries no modelName: plan.ts)
const WAITING_OWNER_REASONS = new Set(['NoReadyPods', 'DeploymentNotRunning', 'GatewayNotFound']);
const where = (md: ModelDeployment) => `${md.metadata.namespace ?? ''}/${md.metadata.name ?? ''}`;
const gatewayReadyReason = (md: ModelDeployment) =>
  md.status?.conditions?.find((c) => c.type === CONDITION_GATEWAY_READY)?.reason ?? '';

/**
 * whether `md`'s status says it holds the name `modelName` on the Gateway `gateway` (ns/name): routed for
 * it, or routed for it before and waiting for a ready pod again
 */
export function holds(md: ModelDeployment, modelName: string, gateway: string): boolean {
  const g = md.status?.gateway;
  if (g?.modelName !== modelName || `${g.gatewayNamespace ?? ''}/${g.gatewayName ?? ''}` !== gateway) return false;
  const reason = gatewayReadyReason(md);
  return HOLDING_REASONS.has(reason) || WAITING_OWNER_REASONS.has(reason);
}

/**
 * What of a deployment the other claimants of its model name read when they decide: nothing while it cannot
 * serve the name (no ready pod, deleting, gateway disabled or routed by its own HTTPRoute: the planner leaves
 * such claimants out); otherwise what ranks it (holding the route, age, name), which Gateway it is on, whether
 * it shares by weight, and the backend a sharer's route points at. An update that leaves this unchanged (a
 * phase, a message, another condition, a ready-pod count that stays above 0) tells them nothing; one that
 * changes it must reach each of them. Every claimant's status write reaching all the others made the work
 * grow with the square of the claimants of a name.
 */
export function claimView(md: ModelDeployment): unknown {
  const s = md.status;
  const gw = md.spec.gateway;
  const serving =
    (s?.endpoint?.service ? (s.replicas?.ready ?? 0) : 0) > 0 &&
    !md.metadata.deletionTimestamp &&
    gw?.enabled !== false &&
    !gw?.httpRouteRef;
  if (!serving) return { serving };
  const reason = gatewayReadyReason(md);
  return {
    serving,
    name: routedModelName(md),
    uid: md.metadata.uid,
    where: where(md),
    created: md.metadata.creationTimestamp,
    gatewayRef: gw?.gatewayRef,
    weight: gw?.weight,
    gateway: s?.gateway,
    holding: HOLDING_REASONS.has(reason) || WAITING_OWNER_REASONS.has(reason),
    provider: s?.provider?.name,
    backend: [s?.endpoint?.service, s?.endpoint?.port],
  };
}

const created = (md: ModelDeployment) => Date.parse(md.metadata.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;

/**
 * `self`'s role for `modelName` on `gateway` (ns/name); `peers` are the other serving claimants on that
 * Gateway (the caller filters: enabled, not deleting, same Gateway, a ready pod); `routedUid` is the
 * deployment this controller last routed for the name there (RouteClaims), which holds it too.
 */
export function nameOwnership(
  self: Claim,
  peers: readonly Claim[],
  modelName: string,
  gateway: string,
  routedUid?: string,
): Ownership {
  const all = [self, ...peers.filter((p) => p.md.metadata.uid !== self.md.metadata.uid)];
  const holding = (md: ModelDeployment) =>
    (routedUid !== undefined && md.metadata.uid === routedUid) || holds(md, modelName, gateway);
  const ranked = [...all].sort(
    (a, b) =>
      Number(holding(b.md)) - Number(holding(a.md)) ||
      created(a.md) - created(b.md) ||
      where(a.md).localeCompare(where(b.md)),
  );
  const owner = ranked[0]!;
  const weighted = (c: Claim) => c.md.spec.gateway?.weight !== undefined;
  const sameNamespace = (c: Claim) => c.md.metadata.namespace === owner.md.metadata.namespace;
  if (owner === self)
    return {
      role: 'owner',
      sharers: weighted(self) ? peers.filter((p) => weighted(p) && sameNamespace(p) && p.readyPods > 0) : [],
    };
  if (weighted(self) && weighted(owner) && sameNamespace(self)) return { role: 'sharer', owner: owner.md };
  return { role: 'conflict', owner: owner.md };
}

/**
 * The deployment this controller last routed for each model name on each Gateway, in this process.
 * A status write lags the route by the settle window, so a claimant judged in between would not see
 * that the name is taken and would route it too: two routes for one name, traffic on the wrong one
 * until the next reconcile. Reconciles decide synchronously (composeState), so reading this at
 * decision time and recording right after leaves no gap; after a restart the statuses say it again.
 */
export class RouteClaims {
  private readonly byKey = new Map<string, string>();
  private readonly byUid = new Map<string, string>();

  /** the uid routed for `modelName` on `gateway` (ns/name) */
  holder(gateway: string, modelName: string): string | undefined {
    return this.byKey.get(`${gateway} ${modelName}`);
  }

  /** `uid` now routes `claim` (undefined: nothing); what it routed before is released */
  record(uid: string, claim?: { gateway: string; modelName: string }): void {
    const previous = this.byUid.get(uid);
    if (previous !== undefined && this.byKey.get(previous) === uid) this.byKey.delete(previous);
    this.byUid.delete(uid);
    if (!claim) return;
    const key = `${claim.gateway} ${claim.modelName}`;
    this.byKey.set(key, uid);
    this.byUid.set(uid, key);
  }

  /** the deployment is gone */
  forget(uid: string): void {
    this.record(uid);
  }
}

export function conflictMessage(
  md: ModelDeployment,
  owner: ModelDeployment,
  modelName: string,
  gateway: string,
): string {
  const shareHint =
    owner.metadata.namespace === md.metadata.namespace ? ', or set spec.gateway.weight on both to share it' : '';
  return `ModelDeployment ${where(md)}: model name "${modelName}" on Gateway ${gateway} is already served by ModelDeployment ${where(owner)}, which claimed it first, so this deployment is not routed: set another spec.gateway.modelName${shareHint}`;
}

/**
 * The admission warning for `md` (docs/kubeairunway.md, "Model names on a Gateway"): another deployment
 * already holds its model name on a Gateway, or claims it too and is not routed yet (two created in one
 * `kubectl apply`), and they do not both share it by weight. The webhook cannot know the Gateway a new
 * deployment will be routed through, so any holder of the name is reported; a claimant only when their
 * gatewayRefs do not name two different Gateways.
 */
export function nameClaimWarning(
  md: ModelDeployment,
  others: readonly ModelDeployment[],
  modelName: string,
): string | undefined {
  if (!claimsAName(md)) return undefined;
  const rivals = others.filter(
    (o) =>
      o.metadata.uid !== md.metadata.uid &&
      !(o.metadata.namespace === md.metadata.namespace && o.metadata.name === md.metadata.name) &&
      !sharesByWeight(md, o),
  );
  const ref = gatewayRefOf(md);
  const holder = rivals.find((o) => {
    const g = o.status?.gateway;
    if (g?.gatewayName === undefined) return false;
    const gateway = `${g.gatewayNamespace ?? ''}/${g.gatewayName}`;
    return (ref === undefined || ref === gateway) && holds(o, modelName, gateway);
  });
  const fix = (o: ModelDeployment) =>
    `set another spec.gateway.modelName${o.metadata.namespace === md.metadata.namespace ? ', or set spec.gateway.weight on both to share it' : ''}`;
  if (holder) {
    const g = holder.status!.gateway!;
    return `spec.gateway: model name "${modelName}" is already served through Gateway ${g.gatewayNamespace}/${g.gatewayName} by ModelDeployment ${where(holder)}; on that Gateway this deployment will get GatewayReady=False (ModelNameConflict) and not be routed: ${fix(holder)}`;
  }
  // a rival routed elsewhere was judged above; one not routed yet may still take the name here
  // md routed already keeps the name against them; one that lost it (ModelNameConflict) does not contend
  const reason = (o: ModelDeployment) =>
    o.status?.conditions?.find((c) => c.type === CONDITION_GATEWAY_READY)?.reason ?? '';
  if (HOLDING_REASONS.has(reason(md))) return undefined;
  const contends = (o: ModelDeployment) => !HOLDING_REASONS.has(reason(o)) && reason(o) !== 'ModelNameConflict';
  const claimant = rivals.find((o) => claimsAName(o) && contends(o) && !o.metadata.deletionTimestamp && !apart(md, o));
  if (!claimant) return undefined;
  return `spec.gateway: model name "${modelName}" is also claimed by ModelDeployment ${where(claimant)}, not routed yet; one Gateway routes a name to one deployment, the first with a ready pod, and the other gets GatewayReady=False (ModelNameConflict): ${fix(claimant)}`;
}

/** routed by model name through a Gateway the controller picks or creates a route on */
const claimsAName = (md: ModelDeployment) => md.spec.gateway?.enabled !== false && !md.spec.gateway?.httpRouteRef;

const sharesByWeight = (a: ModelDeployment, b: ModelDeployment) =>
  a.spec.gateway?.weight !== undefined &&
  b.spec.gateway?.weight !== undefined &&
  a.metadata.namespace === b.metadata.namespace;

/** spec.gateway.gatewayRef as namespace/name, the namespace defaulted */
function gatewayRefOf(md: ModelDeployment): string | undefined {
  const r = md.spec.gateway?.gatewayRef;
  return r ? `${r.namespace || md.metadata.namespace}/${r.name}` : undefined;
}

/** both name a Gateway in spec.gateway.gatewayRef, and not the same one */
function apart(a: ModelDeployment, b: ModelDeployment): boolean {
  const ra = gatewayRefOf(a);
  const rb = gatewayRefOf(b);
  return ra !== undefined && rb !== undefined && ra !== rb;
}
