// Table columns and cells for built-in kinds, matching kube-apiserver's pkg/printers/internalversion (what
// `kubectl get` shows against a real cluster). The server always prints the wide form; kubectl hides the
// priority-1 columns unless -o wide. Cells are strings, integers or booleans exactly where kube uses them.
// Kinds without a printer get kube's default table (Name, Created At), as Roles and CRDs do in kube.
// This module holds the public API and the dispatch table; the printers themselves live beside it by API area.
import type { KubeObject } from '../../types.ts';
import {
  bindingPrinter,
  endpointSlicePrinter,
  hpaPrinter,
  ingressClassPrinter,
  ingressPrinter,
  leasePrinter,
  networkPolicyPrinter,
  pdbPrinter,
  priorityClassPrinter,
  storageClassPrinter,
  webhookConfigPrinter,
} from './cluster.ts';
import { defaultPrinter, type Printer, type TableColumnDefinition, type TableRowCondition } from './columns.ts';
import {
  configMapPrinter,
  endpointsPrinter,
  eventPrinter,
  namespacePrinter,
  nodePrinter,
  pvcPrinter,
  pvPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from './core.ts';
import { path, str } from './format.ts';
import { podPrinter } from './pods.ts';
import {
  controllerRevisionPrinter,
  cronJobPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  jobPrinter,
  podTemplatePrinter,
  replicaSetPrinter,
  replicationControllerPrinter,
  statefulSetPrinter,
} from './workloads.ts';

export type { TableColumnDefinition, TableRowCondition } from './columns.ts';

const PRINTERS: Record<string, Printer> = {
  '/Pod': podPrinter,
  '/PodTemplate': podTemplatePrinter,
  '/ReplicationController': replicationControllerPrinter,
  '/Service': servicePrinter,
  '/Endpoints': endpointsPrinter,
  '/Node': nodePrinter,
  '/Event': eventPrinter,
  '/Namespace': namespacePrinter,
  '/Secret': secretPrinter,
  '/ConfigMap': configMapPrinter,
  '/ServiceAccount': serviceAccountPrinter,
  '/PersistentVolume': pvPrinter,
  '/PersistentVolumeClaim': pvcPrinter,
  'apps/Deployment': deploymentPrinter,
  'apps/ReplicaSet': replicaSetPrinter,
  'apps/StatefulSet': statefulSetPrinter,
  'apps/DaemonSet': daemonSetPrinter,
  'apps/ControllerRevision': controllerRevisionPrinter,
  'batch/Job': jobPrinter,
  'batch/CronJob': cronJobPrinter,
  'events.k8s.io/Event': eventPrinter,
  'discovery.k8s.io/EndpointSlice': endpointSlicePrinter,
  'networking.k8s.io/Ingress': ingressPrinter,
  'networking.k8s.io/IngressClass': ingressClassPrinter,
  'networking.k8s.io/NetworkPolicy': networkPolicyPrinter,
  'storage.k8s.io/StorageClass': storageClassPrinter,
  'coordination.k8s.io/Lease': leasePrinter,
  'scheduling.k8s.io/PriorityClass': priorityClassPrinter,
  'rbac.authorization.k8s.io/RoleBinding': bindingPrinter('roleBinding'),
  'rbac.authorization.k8s.io/ClusterRoleBinding': bindingPrinter('clusterRoleBinding'),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': webhookConfigPrinter,
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': webhookConfigPrinter,
  'autoscaling/HorizontalPodAutoscaler': hpaPrinter,
  'policy/PodDisruptionBudget': pdbPrinter,
};

function printerFor(group: string, kind: string): Printer {
  return PRINTERS[`${group}/${kind}`] ?? defaultPrinter;
}

/** True when kube has a dedicated printer for the kind (otherwise the default Name/Created At table is used). */
export function hasBuiltinPrinter(group: string, kind: string): boolean {
  return `${group}/${kind}` in PRINTERS;
}

/** Column definitions for a built-in kind (always the wide set; kubectl filters by priority). */
export function builtinTableColumns(group: string, kind: string): TableColumnDefinition[] {
  return printerFor(group, kind).columns();
}

/** The cells of one row, in column order. `now` is the reference time for ages (ms since epoch or a Date). */
export function builtinTableRow(
  group: string,
  kind: string,
  obj: KubeObject,
  now: number | Date = Date.now(),
): unknown[] {
  const t = typeof now === 'number' ? now : now.getTime();
  return printerFor(group, kind).row({ ...obj, metadata: obj.metadata ?? {} }, t);
}

/** Row conditions kube attaches: finished pods are marked Completed (kubectl uses it for --show-all style filtering). */
export function builtinRowConditions(group: string, kind: string, obj: KubeObject): TableRowCondition[] | undefined {
  if (group !== '' || kind !== 'Pod') return undefined;
  const phase = str(path(obj, 'status', 'phase'));
  if (phase === 'Succeeded')
    return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}
