// The simulated persistent-volume binder and dynamic provisioner: a Pending claim is bound to a matching
// Available PersistentVolume, or one is provisioned from its StorageClass (the default class when the
// claim names none), named `pvc-<claim uid>`. WaitForFirstConsumer classes wait for the scheduler's
// selected-node annotation. A claim with no class and no default stays Pending with kube's FailedBinding
// event; `sim.modelplane.io/fail: DiskFull` on a claim makes provisioning fail for lack of space.

import { parseQuantity } from '@modelplane/apimachinery/quantity';
import { isAlreadyExists, isNotFound, needsApply } from '@modelplane/runtime/client';
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
  const provisioningSince = new Map<string, number>();
  const pending = new Set<string>();

  sim.mgr
    .controller('sim-pvc-binder')
    .for(PersistentVolumeClaims)
    .watches(StorageClasses, () => [...pending])
    .watches(PersistentVolumes, (pv) => {
      const ref = (pv as PersistentVolume).spec?.claimRef;
      return ref ? [`${ref.namespace}/${ref.name}`] : [...pending];
    })
    .withOptions({ concurrency: 2, fieldManager: FIELD_MANAGER })
    .complete(async (req, ctx) => {
      const key = `${req.namespace}/${req.name}`;
      const pvc = await ctx.cache.get(PersistentVolumeClaims, req.name, req.namespace);
      if (!pvc || pvc.metadata.deletionTimestamp || (pvc.status?.phase === 'Bound' && pvc.spec.volumeName)) {
        pending.delete(key);
        provisioningSince.delete(key);
        return;
      }
      const binder = sim.recorders.for(FIELD_MANAGER);
      const pvs = await ctx.cache.list(PersistentVolumes);

      const bind = async (pv: PersistentVolume, provisioned: boolean) => {
        if (!pv.spec.claimRef?.uid) {
          const claimRef = {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            name: req.name,
            namespace: req.namespace,
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
        await ctx.client.patch(
          PersistentVolumeClaims,
          req.name,
          req.namespace,
          { metadata: { annotations }, spec: { volumeName: pv.metadata.name } },
          'merge',
        );
        await ctx.client.applyStatus({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: req.name, namespace: req.namespace },
          status: { phase: 'Bound', accessModes: pv.spec.accessModes ?? [], capacity: pv.spec.capacity ?? {} },
        });
        if (provisioned)
          sim.recorders
            .for(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] ?? FIELD_MANAGER)
            .event(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata.name}`);
        pending.delete(key);
        provisioningSince.delete(key);
      };

      if (pvc.spec.volumeName) {
        const pv = pvs.find((v) => v.metadata.name === pvc.spec.volumeName);
        if (pv) return void (await bind(pv, false));
        pending.add(key);
        return;
      }
      const classes = await ctx.cache.list(StorageClasses);
      const sc = claimClass(pvc, classes);
      const className = sc?.metadata.name ?? pvc.spec.storageClassName ?? '';
      const match = bestMatch(pvc, pvs, className);
      if (match) return void (await bind(match, false));

      pending.add(key);
      if (!sc) {
        if (className)
          binder.event(pvc, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
        else
          binder.event(
            pvc,
            'Normal',
            'FailedBinding',
            'no persistent volumes available for this claim and no storage class is set',
          );
        return;
      }
      if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !pvc.metadata.annotations?.[SELECTED_NODE_ANNOTATION]) {
        binder.event(pvc, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
        return;
      }

      const provisioner = sim.recorders.for(sc.provisioner);
      const now = sim.now();
      let since = provisioningSince.get(key);
      if (since === undefined) {
        since = now;
        provisioningSince.set(key, since);
        const annotations = Object.fromEntries(PROVISIONER_ANNOTATIONS.map((a) => [a, sc.provisioner]));
        if (PROVISIONER_ANNOTATIONS.some((a) => pvc.metadata.annotations?.[a] !== sc.provisioner)) {
          await ctx.client.patch(
            PersistentVolumeClaims,
            req.name,
            req.namespace,
            { metadata: { annotations } },
            'merge',
          );
        }
        binder.event(
          pvc,
          'Normal',
          'ExternalProvisioning',
          `Waiting for a volume to be created either by the external provisioner '${sc.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
        );
        provisioner.event(
          pvc,
          'Normal',
          'Provisioning',
          `External provisioner is provisioning volume for claim "${req.namespace}/${req.name}"`,
        );
      }
      if (now < since + sim.delays.provision) return { requeueAfter: since + sim.delays.provision - now };
      if (pvc.metadata.annotations?.[FAIL_ANNOTATION] === 'DiskFull') {
        provisioner.event(
          pvc,
          'Warning',
          'ProvisioningFailed',
          `failed to provision volume with StorageClass "${sc.metadata.name}": rpc error: code = ResourceExhausted desc = insufficient storage space: cannot provision ${requested(pvc)}`,
        );
        provisioningSince.delete(key);
        return { requeueAfter: sim.delays.backoffMax };
      }
      let pv: PersistentVolume;
      try {
        pv = await ctx.client.create(provisionedVolume(pvc, sc));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        pv = await ctx.client.get(PersistentVolumes, `pvc-${pvc.metadata.uid}`);
      }
      try {
        await bind(pv, true);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
}
