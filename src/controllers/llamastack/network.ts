// Service, NetworkPolicy and Ingress for a LlamaStackDistribution (docs/llamastack.md, "What the
// controller creates"), plus the PVC, PodDisruptionBudget and HorizontalPodAutoscaler.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { LlamaStackDistribution } from '../../apis/llamastack/index.ts';
import {
  DEFAULT_STORAGE_SIZE,
  hpaName,
  ingressName,
  networkPolicyName,
  objectLabels,
  pdbName,
  pvcName,
  selectorLabels,
  serviceAccountName,
  serviceName,
} from './names.ts';

const meta = (cr: LlamaStackDistribution, name: string) => ({
  name,
  namespace: cr.metadata.namespace,
  labels: objectLabels(cr.metadata.name!),
});

export function buildService(cr: LlamaStackDistribution, port: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(cr, serviceName(cr.metadata.name!)),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(cr.metadata.name!),
      ports: [{ name: 'http', port, targetPort: port, protocol: 'TCP' }],
    },
  } as KubeObject;
}

export function buildServiceAccount(cr: LlamaStackDistribution): KubeObject | undefined {
  if (cr.spec.workload?.overrides?.serviceAccountName) return undefined;
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(cr, serviceAccountName(cr.metadata.name!)) };
}

export function serviceURL(cr: LlamaStackDistribution, port: number): string {
  return `http://${serviceName(cr.metadata.name!)}.${cr.metadata.namespace}.svc.cluster.local:${port}`;
}

/** allowedFrom → who may reach the server's port: this namespace, the operator's, the listed namespaces and namespace label keys */
export function buildNetworkPolicy(
  cr: LlamaStackDistribution,
  port: number,
  operatorNamespace: string,
): KubeObject | undefined {
  const allowed = cr.spec.networking?.allowedFrom;
  if (!allowed) return undefined;
  const nsSelector = (name: string) => ({
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
  });
  const everyNamespace = allowed.namespaces?.includes('*');
  const from = everyNamespace
    ? [{ namespaceSelector: {} }]
    : [
        { podSelector: {} },
        nsSelector(operatorNamespace),
        ...(allowed.namespaces ?? []).map(nsSelector),
        ...(allowed.labels ?? []).map((key) => ({
          namespaceSelector: { matchExpressions: [{ key, operator: 'Exists' }] },
        })),
      ];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta(cr, networkPolicyName(cr.metadata.name!)),
    spec: {
      podSelector: { matchLabels: selectorLabels(cr.metadata.name!) },
      policyTypes: ['Ingress'],
      ingress: [{ from, ports: [{ protocol: 'TCP', port }] }],
    },
  } as KubeObject;
}

export function buildIngress(cr: LlamaStackDistribution, port: number): KubeObject | undefined {
  const expose = cr.spec.networking?.expose;
  if (!expose?.enabled) return undefined;
  const path = {
    path: '/',
    pathType: 'Prefix',
    backend: { service: { name: serviceName(cr.metadata.name!), port: { number: port } } },
  };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta(cr, ingressName(cr.metadata.name!)),
    spec: { rules: [{ ...(expose.hostname ? { host: expose.hostname } : {}), http: { paths: [path] } }] },
  } as KubeObject;
}

export function buildPvc(cr: LlamaStackDistribution): KubeObject | undefined {
  const storage = cr.spec.workload?.storage;
  if (!storage) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta(cr, pvcName(cr.metadata.name!)),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: String(storage.size ?? DEFAULT_STORAGE_SIZE) } },
    },
  } as KubeObject;
}

/** one when asked for or when there is more than one replica; by default at most one pod down at a time */
export function buildPdb(cr: LlamaStackDistribution): KubeObject | undefined {
  const w = cr.spec.workload ?? {};
  if (!w.podDisruptionBudget && (w.replicas ?? 1) <= 1 && !w.autoscaling) return undefined;
  const budget =
    w.podDisruptionBudget?.minAvailable !== undefined || w.podDisruptionBudget?.maxUnavailable !== undefined
      ? w.podDisruptionBudget
      : { maxUnavailable: 1 };
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(cr, pdbName(cr.metadata.name!)),
    spec: { ...budget, selector: { matchLabels: selectorLabels(cr.metadata.name!) } },
  } as KubeObject;
}

export function buildHpa(cr: LlamaStackDistribution): KubeObject | undefined {
  const w = cr.spec.workload ?? {};
  const a = w.autoscaling;
  if (!a?.maxReplicas) return undefined;
  const metric = (name: string, averageUtilization: number) => ({
    type: 'Resource',
    resource: { name, target: { type: 'Utilization', averageUtilization } },
  });
  const metrics = [
    ...(a.targetCPUUtilizationPercentage !== undefined ? [metric('cpu', a.targetCPUUtilizationPercentage)] : []),
    ...(a.targetMemoryUtilizationPercentage !== undefined
      ? [metric('memory', a.targetMemoryUtilizationPercentage)]
      : []),
  ];
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta(cr, hpaName(cr.metadata.name!)),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: cr.metadata.name },
      minReplicas: Math.min(a.maxReplicas, Math.max(1, a.minReplicas ?? 1, w.replicas ?? 1)),
      maxReplicas: a.maxReplicas,
      metrics: metrics.length ? metrics : [metric('cpu', 80)],
    },
  } as KubeObject;
}
