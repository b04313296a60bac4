// What the AIM e2e suites share: a dev cluster running the whole `aim` controller set with the simulated
// image registry (nodes with MI300X labels, Jobs whose pods print what AIM images print), condition and
// object lookups, and the "frozen dependency" technique of docs/aim.md: an upstream object created with the
// pause annotation and its status written by the test, so a controller can be watched against a fixed state.

import type { KubeClient } from '@modelplane/runtime/client';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { SimRegistry } from '@modelplane/sim/registry';
import { aimControllerSet } from '../../../src/controllers/aim/index.ts';
import { AIM_RECONCILIATION_PAUSED_ANNOTATION } from '../../../src/controllers/aim/shared/reconcile-paused.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { type WaitOptions, waitFor } from '../../helpers/wait.ts';

export type Json = Record<string, any>;
export type Obj = KubeObject & { spec: Json; status?: Json };

export const AIM_API = 'aim.eai.amd.com/v1alpha1';
export const AIM_OPERATOR_NS = 'aim-system';
export const QWEN_IMAGE = 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5';
export const LLAMA_IMAGE = 'amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct:0.8.5';
export const QWEN8_IMAGE = 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5';

// AIM_TEST_LOG=info shows the operator's and the simulators' logs while debugging
export const aimTestLog = new Logger({}, parseLogLevel(process.env.AIM_TEST_LOG, 'silent'));

export const Kinds = {
  Services: kindRef<Obj>(AIM_API, 'AIMService'),
  Models: kindRef<Obj>(AIM_API, 'AIMModel'),
  ClusterModels: kindRef<Obj>(AIM_API, 'AIMClusterModel'),
  Templates: kindRef<Obj>(AIM_API, 'AIMServiceTemplate'),
  ClusterTemplates: kindRef<Obj>(AIM_API, 'AIMClusterServiceTemplate'),
  Caches: kindRef<Obj>(AIM_API, 'AIMTemplateCache'),
  Artifacts: kindRef<Obj>(AIM_API, 'AIMArtifact'),
  InferenceServices: kindRef<Obj>('serving.kserve.io/v1beta1', 'InferenceService'),
  Jobs: kindRef<Obj>('batch/v1', 'Job'),
  Pods: kindRef<Obj>('v1', 'Pod'),
  Pvcs: kindRef<Obj>('v1', 'PersistentVolumeClaim'),
  Nodes: kindRef<Obj>('v1', 'Node'),
} as const;

export interface AimClusterOptions {
  /** namespaces created before the tests start (the operator namespace is always added) */
  namespaces: string[];
  /** how long a failed artifact download waits before its retry (default: the controller's 5 min) */
  artifactRetryMs?: number;
}

/** a dev cluster running the AIM controller set with the simulated image registry */
export function startAimCluster(name: string, opts: AimClusterOptions): Promise<OperatorTestCluster<unknown>> {
  return startOperatorTestCluster({
    name,
    log: aimTestLog,
    namespaces: [...opts.namespaces, AIM_OPERATOR_NS],
    register: (mgr) =>
      aimControllerSet(opts.artifactRetryMs !== undefined ? { artifactRetryMs: opts.artifactRetryMs } : {}).register(
        mgr,
        {
          operatorNamespace: AIM_OPERATOR_NS,
          podNamespace: 'modelplane-system',
          log: aimTestLog,
          imageRegistry: new SimRegistry(),
        },
      ),
  });
}

export const cond = (o: { status?: unknown } | undefined, type: string): Json | undefined =>
  ((o?.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type);

/** "Type=Status/Reason" of a condition, for compact assertions */
export const condSummary = (o: { status?: unknown } | undefined, type: string): string => {
  const c = cond(o, type);
  return c ? `${type}=${c.status}/${c.reason}` : `${type} absent`;
};

/** apply an object with kubectl, as a user would */
export const kubectlApply = (cluster: OperatorTestCluster<unknown>, obj: object) =>
  cluster.k(['apply', '-f', '-'], JSON.stringify(obj));

/**
 * The frozen-dependency technique: `obj` is created with the reconciliation-paused annotation (its controller
 * leaves it alone), then its status is written through the status subresource.
 */
export async function applyFrozen(admin: KubeClient, obj: Obj, status: Json): Promise<void> {
  const metadata = {
    ...obj.metadata,
    annotations: { ...obj.metadata.annotations, [AIM_RECONCILIATION_PAUSED_ANNOTATION]: 'true' },
  };
  await admin.apply({ ...obj, metadata });
  await admin.applyStatus({
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) },
    status,
  });
}

/** waits until the object exists and `ok` holds for it; the timeout error shows its last status */
export function waitForObject(
  admin: KubeClient,
  kind: (typeof Kinds)[keyof typeof Kinds],
  name: string,
  namespace: string | undefined,
  what: string,
  ok: (o: Obj) => boolean,
  opts: WaitOptions = {},
): Promise<Obj> {
  return waitFor(
    `${kind.kind} ${namespace ? `${namespace}/` : ''}${name}: ${what}`,
    async () => {
      const o = await admin.getOrUndefined(kind, name, namespace);
      return o && ok(o) ? o : undefined;
    },
    {
      timeoutMs: 30_000,
      detail: async () => (await admin.getOrUndefined(kind, name, namespace))?.status ?? 'absent',
      ...opts,
    },
  );
}
