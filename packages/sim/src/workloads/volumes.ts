// PersistentVolume phases and reclaim (the other half of kube's persistentvolume-controller): a volume
// without a claim is Available; when its claim is deleted it is deleted (reclaimPolicy Delete) or
// Released (Retain).

import { isNotFound, needsApply } from '@modelplane/runtime/client';
import type { SimContext } from './context.ts';
import { type PersistentVolume, PersistentVolumeClaims, PersistentVolumes } from './kinds.ts';

const FIELD_MANAGER = 'persistentvolume-controller';

export function registerVolumeReclaimer(sim: SimContext): void {
  sim.mgr
    .controller('sim-pv-reclaimer')
    .for(PersistentVolumes)
    .watches(PersistentVolumeClaims, (pvc) => (pvc.spec?.volumeName ? [pvc.spec.volumeName] : []))
    .withOptions({ concurrency: 2, fieldManager: FIELD_MANAGER })
    .complete(async (req, ctx) => {
      const pv = await ctx.cache.get(PersistentVolumes, req.name);
      if (!pv || pv.metadata.deletionTimestamp) return;
      const ref = pv.spec.claimRef;
      let phase: NonNullable<PersistentVolume['status']>['phase'] = 'Available';
      if (ref?.name) {
        const pvc = await ctx.cache.get(PersistentVolumeClaims, ref.name, ref.namespace);
        const claimed = pvc && (!ref.uid || pvc.metadata.uid === ref.uid);
        if (claimed) {
          // a claim reserved for this volume but not bound yet keeps it Available; the binder binds it
          if (pv.status?.phase !== 'Bound') return;
          phase = 'Bound';
        } else if (ref.uid) {
          if ((pv.spec.persistentVolumeReclaimPolicy ?? 'Retain') === 'Delete') {
            try {
              await ctx.client.delete(PersistentVolumes, req.name, undefined, {
                preconditions: { uid: pv.metadata.uid! },
              });
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
            return;
          }
          phase = 'Released';
        }
      }
      const desired = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: req.name }, status: { phase } };
      if (!needsApply(desired, pv, FIELD_MANAGER, 'status')) return;
      try {
        await ctx.client.applyStatus(desired);
      } catch (err) {
        // the volume was deleted meanwhile: its delete event follows, and a retry would only repeat the 404
        if (!isNotFound(err)) throw err;
      }
    });
}
