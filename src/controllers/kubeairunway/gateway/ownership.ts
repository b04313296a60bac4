// Who serves a model name on a Gateway (docs/kubeairunway.md, "Model names on a Gateway"), pure. Requests
// are routed by the name alone, so two deployments answering to one name would split or steal each other's
// traffic silently. The first claimant keeps it: among the deployments that claim the name on the same
// Gateway and have a ready pod, one that already holds the route (its status says so) wins, then the
// oldest, then namespace/name. Others get ModelNameConflict, unless they and the owner all set
// spec.gateway.weight in one namespace: then the owner's route carries one weighted backend per sharer.
import { CONDITION_GATEWAY_READY, type ModelDeployment } from '../../../apis/kubeairunway/index.ts';

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
const where = (md: ModelDeployment) => `${md.metadata.namespace ?? ''}/${md.metadata.name ?? ''}`;

/** whether `md`'s status says it holds the route for `modelName` on the Gateway `gateway` (ns/name) */
function holds(md: ModelDeployment, modelName: string, gateway: string): boolean {
  const g = md.status?.gateway;
  if (g?.modelName !== modelName || `${g.gatewayNamespace ?? ''}/${g.gatewayName ?? ''}` !== gateway) return false;
  const c = md.status?.conditions?.find((x) => x.type === CONDITION_GATEWAY_READY);
  return c !== undefined && HOLDING_REASONS.has(c.reason ?? '');
}

/**
 * What of a deployment the other claimants of its model name read when they decide (ownership, sharing,
 * their backends): everything outside its status, and of its status the provider, the endpoint and ready
 * pods, the Gateway it holds and its GatewayReady reason. An update that leaves this unchanged (a phase,
 * message or another condition) tells them nothing; one that changes it must reach each of them.
 */
export function claimView(md: ModelDeployment): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = md.metadata;
  const s = md.status;
  return {
    metadata,
    spec: md.spec,
    provider: s?.provider?.name,
    endpoint: s?.endpoint,
    readyPods: s?.replicas?.ready,
    gateway: s?.gateway,
    gatewayReady: s?.conditions?.find((c) => c.type === CONDITION_GATEWAY_READY)?.reason,
  };
}

const created = (md: ModelDeployment) => Date.parse(md.metadata.creationTimestamp ?? '') || Number.MAX_SAFE_INTEGER;

/**
 * `self`'s role for `modelName` on `gateway` (ns/name); `peers` are the other serving claimants on that
 * Gateway (the caller filters: enabled, not deleting, same Gateway, a ready pod).
 */
export function nameOwnership(self: Claim, peers: readonly Claim[], modelName: string, gateway: string): Ownership {
  const all = [self, ...peers.filter((p) => p.md.metadata.uid !== self.md.metadata.uid)];
  const ranked = [...all].sort(
    (a, b) =>
      Number(holds(b.md, modelName, gateway)) - Number(holds(a.md, modelName, gateway)) ||
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
 * already holds its model name on a Gateway, and they do not both share it by weight. The webhook cannot
 * know the Gateway a new deployment will be routed through, so any holder of the name is reported.
 */
export function nameClaimWarning(
  md: ModelDeployment,
  others: readonly ModelDeployment[],
  modelName: string,
): string | undefined {
  if (md.spec.gateway?.enabled === false || md.spec.gateway?.httpRouteRef) return undefined;
  const holder = others.find((o) => {
    if (
      o.metadata.uid === md.metadata.uid ||
      (o.metadata.namespace === md.metadata.namespace && o.metadata.name === md.metadata.name)
    )
      return false;
    const g = o.status?.gateway;
    return g?.gatewayName !== undefined && holds(o, modelName, `${g.gatewayNamespace ?? ''}/${g.gatewayName}`);
  });
  if (!holder) return undefined;
  const sharing =
    md.spec.gateway?.weight !== undefined &&
    holder.spec.gateway?.weight !== undefined &&
    holder.metadata.namespace === md.metadata.namespace;
  if (sharing) return undefined;
  const g = holder.status!.gateway!;
  return `spec.gateway: model name "${modelName}" is already served through Gateway ${g.gatewayNamespace}/${g.gatewayName} by ModelDeployment ${where(holder)}; on that Gateway this deployment will get GatewayReady=False (ModelNameConflict) and not be routed: set another spec.gateway.modelName${holder.metadata.namespace === md.metadata.namespace ? ', or set spec.gateway.weight on both to share it' : ''}`;
}
