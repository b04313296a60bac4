// Two small kube-controller-manager controllers that give every active namespace what pods and
// clients expect to find there: the `default` ServiceAccount (serviceaccount-controller) and the
// `kube-root-ca.crt` ConfigMap holding the API server's CA (root-ca-cert-publisher). Both are
// recreated when deleted, the ConfigMap is restored when edited, and neither is created in a
// namespace that is being deleted. Writes go through the full write path (admission included), as
// the real controllers' API calls do.
import type { ServerCore } from '../core.ts';
import type { RequestContext } from '../objects/context.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { StoredEvent } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import { NamespaceKeyedController } from './namespace-keyed-controller.ts';
import { controllerContext, NAMESPACES } from './writes.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const SERVICE_ACCOUNTS = '/serviceaccounts';
const CONFIGMAPS = '/configmaps';

export interface ServiceAccountControllerOptions {
  /** PEM of the CA that signed the API server's serving certificate (published as `ca.crt`) */
  caPem: string;
  warn?: (message: string) => void;
}

export class ServiceAccountController extends NamespaceKeyedController {
  constructor(
    core: ServerCore,
    private readonly opts: ServiceAccountControllerOptions,
  ) {
    super(core, 'serviceaccount controller', 4, opts.warn ?? console.warn);
  }

  protected initialKeys(): string[] {
    return this.core.store.list(NAMESPACES).map((ns) => ns.metadata.name!);
  }

  protected onEvent(e: StoredEvent): void {
    const { name, namespace } = e.object.metadata;
    if (e.storageKey === NAMESPACES) {
      if (e.type !== 'DELETED') this.queue.add(name!);
    } else if (
      namespace &&
      e.type === 'DELETED' &&
      e.storageKey === SERVICE_ACCOUNTS &&
      name === DEFAULT_SERVICE_ACCOUNT
    ) {
      this.queue.add(namespace);
    } else if (namespace && e.type !== 'ADDED' && e.storageKey === CONFIGMAPS && name === ROOT_CA_CONFIGMAP) {
      this.queue.add(namespace);
    }
  }

  protected async sync(namespace: string): Promise<void> {
    const ns = this.core.store.get(NAMESPACES, undefined, namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    await this.ensureServiceAccount(namespace);
    await this.ensureRootCa(namespace);
  }

  private async ensureServiceAccount(namespace: string): Promise<void> {
    if (this.core.store.get(SERVICE_ACCOUNTS, namespace, DEFAULT_SERVICE_ACCOUNT)) return;
    await this.write(this.type('serviceaccounts'), namespace, controllerContext('service-account-controller'), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace },
    });
  }

  private async ensureRootCa(namespace: string): Promise<void> {
    const current = this.core.store.get(CONFIGMAPS, namespace, ROOT_CA_CONFIGMAP);
    const data = { 'ca.crt': this.opts.caPem };
    const ctx = controllerContext('root-ca-cert-publisher');
    if (!current) {
      await this.write(this.type('configmaps'), namespace, ctx, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: ROOT_CA_CONFIGMAP,
          namespace,
          annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
        },
        data,
      });
      return;
    }
    if (current.metadata.deletionTimestamp) return;
    const currentData = current.data as Record<string, string> | undefined;
    const same = currentData && Object.keys(currentData).length === 1 && currentData['ca.crt'] === this.opts.caPem;
    if (same && current.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return;
    const candidate: KubeObject = {
      ...current,
      metadata: {
        ...current.metadata,
        annotations: { ...current.metadata.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
      },
      data,
    };
    await this.write(this.type('configmaps'), namespace, ctx, candidate, current);
  }

  private async write(
    rt: ResourceType,
    namespace: string,
    ctx: RequestContext,
    candidate: KubeObject,
    old?: KubeObject,
  ): Promise<void> {
    try {
      await this.core.lifecycle.write({
        rt,
        version: 'v1',
        namespace,
        ctx,
        candidate,
        ...(old ? { old } : {}),
        recordManagedFields: this.core.managedFieldsRecorder(rt, 'v1', ctx, undefined),
      });
    } catch (err) {
      // Created meanwhile (409), or the namespace went or started terminating: nothing left to do.
      // Anything else (a webhook refusing, say) is retried with backoff.
      const code = (err as { code?: unknown }).code;
      if (code === 409) return;
      const ns = this.core.store.get(NAMESPACES, undefined, namespace);
      if ((code === 404 || code === 403) && (!ns || ns.metadata.deletionTimestamp)) return;
      throw err;
    }
  }

  private type(plural: string): ResourceType {
    const rt = this.core.registry.byResource('', plural);
    if (!rt) throw new Error(`${plural} are not served`);
    return rt;
  }
}
