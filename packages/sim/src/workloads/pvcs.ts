// The simulated persistent-volume binder and dynamic provisioner: a Pending claim is bound to a matching
// Available PersistentVolume, or one is provisioned from its StorageClass (the default class when the
// claim names none), named `pvc-<claim uid>`. WaitForFirstConsumer classes wait for the scheduler's
// selected-node annotation. A claim with no class and no default stays Pending with kube's FailedBinding
// event; `sim.modelplane.io/fail: DiskFull` on a claim makes provisioning fail for lack of space.

import { parseQuantity } from '@modelplane/apimachinery/quantity';
import { isAlreadyExists, isNotFound, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext, Request, Result } from '@modelplane/runtime/controller';
import type { SimContext } from './context.ts';
import {
  FAIL_ANNOTATION,
  type PersistentVolume,
  type PersistentVolumeClaim,
  PersistentVolumeClaims,
  PersistentVolumes,
  type StorageClass,
  StorageClasses,
} from './kinds.ts';
import { claimClass, SELECTED_NODE_ANNOTATION } from './scheduler.ts';

const FIELD_MANAGER = 'persistentvolume-controller';
const PROVISIONER_ANNOTATIONS = [
  'volume.beta.kubernetes.io/storage-provisioner',
  'volume.kubernetes.io/storage-provisioner',
];

function requested(pvc: PersistentVolumeClaim): string {
  return pvc.spec.resources?.requests?.storage ?? '1Gi';
}

function fits(pv: PersistentVolume, pvc: PersistentVolumeClaim, className: string): boolean {
  if ((pv.spec.storageClassName ?? '') !== className) return false;
  if (pv.status?.phase !== 'Available' && pv.status?.phase !== undefined) return false;
  const ref = pv.spec.claimRef;
  if (ref && (ref.name !== pvc.metadata.name || ref.namespace !== pvc.metadata.namespace)) return false;
  if ((pv.spec.volumeMode ?? 'Filesystem') !== (pvc.spec.volumeMode ?? 'Filesystem')) return false;
  if (!(pvc.spec.accessModes ?? []).every((m) => (pv.spec.accessModes ?? []).includes(m))) return false;
  try {
    return parseQuantity(pv.spec.capacity?.storage ?? '0').cmp(parseQuantity(requested(pvc))) >= 0;
  } catch {
    return false;
  }
}

/** the smallest Available volume that satisfies the claim (kube's findBestMatchForClaim) */
export function bestMatch(
  pvc: PersistentVolumeClaim,
  pvs: readonly PersistentVolume[],
  className: string,
): PersistentVolume | undefined {
  const candidates = pvs.filter((pv) => !pv.metadata.deletionTimestamp && fits(pv, pvc, className));
  candidates.sort((a, b) =>
    parseQuantity(a.spec.capacity?.storage ?? '0').cmp(parseQuantity(b.spec.capacity?.storage ?? '0')),
  );
  return candidates[0];
}

function provisionedVolume(pvc: PersistentVolumeClaim, sc: StorageClass): PersistentVolume {
  const name = `pvc-${pvc.metadata.uid}`;
  const node = pvc.metadata.annotations?.[SELECTED_NODE_ANNOTATION];
  const local = /local-path|hostpath|no-provisioner/i.test(sc.provisioner);
  const source = local
    ? {
        hostPath: {
          path: `/var/lib/modelplane-sim/volumes/${name}_${pvc.metadata.namespace}_${pvc.metadata.name}`,
          type: 'DirectoryOrCreate',
        },
      }
    : { csi: { driver: sc.provisioner, volumeHandle: name, fsType: 'ext4' } };
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': sc.provisioner } },
    spec: {
      accessModes: pvc.spec.accessModes ?? ['ReadWriteOnce'],
      capacity: { storage: requested(pvc) },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        name: pvc.metadata.name!,
        namespace: pvc.metadata.namespace!,
        uid: pvc.metadata.uid!,
        resourceVersion: pvc.metadata.resourceVersion!,
      },
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      storageClassName: sc.metadata.name!,
      volumeMode: pvc.spec.volumeMode ?? 'Filesystem',
      ...source,
      ...(node
        ? {
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
                ],
              },
            },
          }
        : {}),
    },
  };
}

export function registerClaimBinder(sim: SimContext): void {
  const binder = new ClaimBinder(sim);
  sim.mgr
    .controller('sim-pvc-binder')
    .for(PersistentVolumeClaims)
    .watches(StorageClasses, () => [...binder.pending])
    .watches(PersistentVolumes, (pv) => {
      const ref = (pv as PersistentVolume).spec?.claimRef;
      return ref ? [`${ref.namespace}/${ref.name}`] : [...binder.pending];
    })
    .withOptions({ concurrency: 2, fieldManager: FIELD_MANAGER })
    .complete((req, ctx) => binder.reconcile(req, ctx));
}

/** kube-controller-manager's PersistentVolume controller for claims: binds, or provisions then binds */
class ClaimBinder {
  /** claims waiting for a volume, a class or a provisioner (re-queued when those change) */
  readonly pending = new Set<string>();
  private readonly provisioningSince = new Map<string, number>();

  constructor(private readonly sim: SimContext) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | undefined> {
    const key = `${req.namespace}/${req.name}`;
    const pvc = await ctx.cache.get(PersistentVolumeClaims, req.name, req.namespace);
    if (!pvc || pvc.metadata.deletionTimestamp || (pvc.status?.phase === 'Bound' && pvc.spec.volumeName)) {
      this.done(key);
      return undefined;
    }
    const pvs = await ctx.cache.list(PersistentVolumes);
    if (pvc.spec.volumeName) {
      const pv = pvs.find((v) => v.metadata.name === pvc.spec.volumeName);
      if (pv) await this.bind(ctx, pvc, pv, false);
      else this.pending.add(key);
      return undefined;
    }
    const sc = claimClass(pvc, await ctx.cache.list(StorageClasses));
    const className = sc?.metadata.name ?? pvc.spec.storageClassName ?? '';
    const match = bestMatch(pvc, pvs, className);
    if (match) {
      await this.bind(ctx, pvc, match, false);
      return undefined;
    }
    this.pending.add(key);
    if (!sc) return void this.noClass(pvc, className);
    if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !pvc.metadata.annotations?.[SELECTED_NODE_ANNOTATION]) {
      this.recorder().event(
        pvc,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
      return undefined;
    }
    return this.provision(ctx, pvc, sc);
  }

  private recorder() {
    return this.sim.recorders.for(FIELD_MANAGER);
  }

  private done(key: string): void {
    this.pending.delete(key);
    this.provisioningSince.delete(key);
  }

  private noClass(pvc: PersistentVolumeClaim, className: string): void {
    if (className)
      this.recorder().event(
        pvc,
        'Warning',
        'ProvisioningFailed',
        `storageclass.storage.k8s.io "${className}" not found`,
      );
    else
      this.recorder().event(
        pvc,
        'Normal',
        'FailedBinding',
        'no persistent volumes available for this claim and no storage class is set',
      );
  }

  /** the external provisioner: announces itself, waits its delay, then creates the volume (or fails on DiskFull) */
  private async provision(
    ctx: ReconcileContext,
    pvc: PersistentVolumeClaim,
    sc: StorageClass,
  ): Promise<Result | undefined> {
    const key = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
    const now = this.sim.now();
    let since = this.provisioningSince.get(key);
    if (since === undefined) {
      since = now;
      this.provisioningSince.set(key, since);
      await this.announceProvisioning(ctx, pvc, sc);
    }
    const delay = this.sim.delays.provision;
    if (now < since + delay) return { requeueAfter: since + delay - now };
    if (pvc.metadata.annotations?.[FAIL_ANNOTATION] === 'DiskFull') {
      this.sim.recorders
        .for(sc.provisioner)
        .event(
          pvc,
          'Warning',
          'ProvisioningFailed',
          `failed to provision volume with StorageClass "${sc.metadata.name}": rpc error: code = ResourceExhausted desc = insufficient storage space: cannot provision ${requested(pvc)}`,
        );
      this.provisioningSince.delete(key);
      return { requeueAfter: this.sim.delays.backoffMax };
    }
    let pv: PersistentVolume;
    try {
      pv = await ctx.client.create(provisionedVolume(pvc, sc));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      pv = await ctx.client.get(PersistentVolumes, `pvc-${pvc.metadata.uid}`);
    }
    try {
      await this.bind(ctx, pvc, pv, true);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return undefined;
  }

  private async announceProvisioning(ctx: ReconcileContext, pvc: PersistentVolumeClaim, sc: StorageClass) {
    const { name = '', namespace = '' } = pvc.metadata;
    const annotations = Object.fromEntries(PROVISIONER_ANNOTATIONS.map((a) => [a, sc.provisioner]));
    if (PROVISIONER_ANNOTATIONS.some((a) => pvc.metadata.annotations?.[a] !== sc.provisioner)) {
      await ctx.client.patch(PersistentVolumeClaims, name, namespace, { metadata: { annotations } }, 'merge');
    }
    this.recorder().event(
      pvc,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${sc.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    this.sim.recorders
      .for(sc.provisioner)
      .event(
        pvc,
        'Normal',
        'Provisioning',
        `External provisioner is provisioning volume for claim "${namespace}/${name}"`,
      );
  }

  /** reserves the volume for the claim (claimRef), then marks both Bound */
  private async bind(ctx: ReconcileContext, pvc: PersistentVolumeClaim, pv: PersistentVolume, provisioned: boolean) {
    const { name = '', namespace = '' } = pvc.metadata;
    if (!pv.spec.claimRef?.uid) {
      const claimRef = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        name,
        namespace,
        uid: pvc.metadata.uid,
        resourceVersion: pvc.metadata.resourceVersion,
      };
      pv = await ctx.client.patch(PersistentVolumes, pv.metadata.name!, undefined, { spec: { claimRef } }, 'merge');
    }
    const pvStatus = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pv.metadata.name },
      status: { phase: 'Bound' },
    };
    if (needsApply(pvStatus, pv, FIELD_MANAGER, 'status')) await ctx.client.applyStatus(pvStatus);
    const annotations: Record<string, string> = {
      'pv.kubernetes.io/bind-completed': 'yes',
      ...(pvc.spec.volumeName ? {} : { 'pv.kubernetes.io/bound-by-controller': 'yes' }),
    };
    const patch = { metadata: { annotations }, spec: { volumeName: pv.metadata.name } };
    await ctx.client.patch(PersistentVolumeClaims, name, namespace, patch, 'merge');
    await ctx.client.applyStatus({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace },
      status: { phase: 'Bound', accessModes: pv.spec.accessModes ?? [], capacity: pv.spec.capacity ?? {} },
    });
    if (provisioned)
      this.sim.recorders
        .for(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] ?? FIELD_MANAGER)
        .event(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata.name}`);
    this.done(`${namespace}/${name}`);
  }
}
