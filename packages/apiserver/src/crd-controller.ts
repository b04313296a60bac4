// What kube-apiserver's apiextensions controllers do for a CustomResourceDefinition: serve its
// resource (within milliseconds of the write), report NamesAccepted/Established and acceptedNames,
// maintain status.storedVersions, and on deletion remove every custom resource before the CRD goes.
import type { ServerCore } from './core.ts';
import { kubeTime } from './objects/meta.ts';
import { resourceTypeFromCrd } from './resource-types/crd-types.ts';
import type { StoredEvent } from './storage/store.ts';
import type { KubeObject } from './types.ts';

export const CRD_STORAGE = 'apiextensions.k8s.io/customresourcedefinitions';
export const CRD_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export class CrdController {
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly core: ServerCore) {}

  start(): void {
    for (const crd of this.core.store.list(CRD_STORAGE)) this.sync(crd);
    this.unsubscribe = this.core.store.watch(CRD_STORAGE, this.core.store.currentRv(), (e) => this.onEvent(e));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private onEvent(e: StoredEvent): void {
    // Status writes below re-enter here; defer so the store finishes notifying listeners first.
    queueMicrotask(() => {
      if (e.type === 'DELETED') {
        const spec = e.object.spec as { group: string; names: { plural: string } };
        const rt = this.core.registry.byResource(spec.group, spec.names.plural);
        if (rt && rt.crdUid === e.object.metadata.uid) this.core.registry.remove(spec.group, spec.names.plural);
        return;
      }
      const latest = this.core.store.get(CRD_STORAGE, undefined, e.object.metadata.name!);
      if (latest && latest.metadata.resourceVersion === e.object.metadata.resourceVersion) this.sync(latest);
    });
  }

  private sync(crd: KubeObject): void {
    const rt = resourceTypeFromCrd(crd);
    if (crd.metadata.deletionTimestamp) {
      this.cleanup(crd);
      return;
    }
    const conflict = this.core.registry
      .all()
      .find(
        (other) =>
          other.group === rt.group &&
          other.crdUid !== crd.metadata.uid &&
          (other.plural === rt.plural || other.kind === rt.kind),
      );
    if (conflict) {
      this.writeStatus(crd, false, `"${conflict.plural === rt.plural ? rt.plural : rt.kind}" is already in use`);
      return;
    }
    this.core.registry.put(rt);
    this.writeStatus(crd, true, 'no conflicts found');
  }

  private cleanup(crd: KubeObject): void {
    const rt = resourceTypeFromCrd(crd);
    const current = this.core.registry.byResource(rt.group, rt.plural);
    if (current?.crdUid === crd.metadata.uid) this.core.registry.remove(rt.group, rt.plural);
    // Our part is done once our finalizer is gone; other finalizers (foreground/orphan) belong to others.
    if (!(crd.metadata.finalizers ?? []).includes(CRD_FINALIZER)) return;
    for (const obj of this.core.store.list(rt.storageKey)) {
      const gone = this.core.store.commit(rt.storageKey, 'DELETED', obj);
      for (const l of this.core.deletedListeners) l(rt, gone);
    }
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_FINALIZER);
    if (finalizers.length === 0) this.core.store.commit(CRD_STORAGE, 'DELETED', crd);
    else this.core.store.commit(CRD_STORAGE, 'MODIFIED', { ...crd, metadata: { ...crd.metadata, finalizers } });
  }

  private writeStatus(crd: KubeObject, accepted: boolean, message: string): void {
    const spec = crd.spec as { names: Record<string, unknown>; versions: Array<{ name: string; storage: boolean }> };
    const status = (crd.status ?? {}) as {
      conditions?: Condition[];
      storedVersions?: string[];
      acceptedNames?: unknown;
    };
    const now = kubeTime();
    const cond = (type: string, ok: boolean, reason: string, msg: string): Condition => {
      const prev = status.conditions?.find((c) => c.type === type);
      const s = ok ? 'True' : 'False';
      return {
        type,
        status: s,
        lastTransitionTime: prev && prev.status === s ? prev.lastTransitionTime : now,
        reason,
        message: msg,
      };
    };
    const names = { ...spec.names };
    names.singular ??= String(names.kind).toLowerCase();
    names.listKind ??= `${String(names.kind)}List`;
    const storage = spec.versions.find((v) => v.storage)?.name;
    const stored = [...(status.storedVersions ?? [])];
    if (storage && !stored.includes(storage)) stored.push(storage);
    const next = {
      ...status,
      conditions: [
        cond('NamesAccepted', accepted, accepted ? 'NoConflicts' : 'NameConflict', message),
        cond(
          'Established',
          accepted,
          accepted ? 'InitialNamesAccepted' : 'NotAccepted',
          accepted ? 'the initial names have been accepted' : 'not all names are accepted',
        ),
      ],
      acceptedNames: accepted ? names : (status.acceptedNames ?? { plural: '', kind: '' }),
      storedVersions: stored,
    };
    if (JSON.stringify(next) === JSON.stringify(crd.status)) return;
    const finalizers = crd.metadata.finalizers ?? [];
    const meta = finalizers.includes(CRD_FINALIZER)
      ? crd.metadata
      : { ...crd.metadata, finalizers: [...finalizers, CRD_FINALIZER] };
    this.core.store.commit(CRD_STORAGE, 'MODIFIED', { ...crd, metadata: meta, status: next });
  }
}
