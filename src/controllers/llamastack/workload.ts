// The server's Deployment (docs/llamastack.md, "What the controller creates"): image, the config
// ConfigMap's volume, the environment (secrets by secretKeyRef) and the hash annotations are one object,
// so a new config and a new image always reach the Deployment in one write.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { LlamaStackDistribution } from '../../apis/llamastack/index.ts';
import { CA_BUNDLE_KEY } from './ca-bundle.ts';
import type { SecretRefUse } from './config/index.ts';
import { SQL_CONNECTION_STRING_ENV, withConnectionStringSplit } from './config/postgres.ts';
import {
  CA_BUNDLE_DIR,
  CA_BUNDLE_HASH_ANNOTATION,
  CONFIG_DIR,
  CONFIG_HASH_ANNOTATION,
  CONFIG_PATH,
  containerNameOf,
  DEFAULT_MOUNT_PATH,
  objectLabels,
  pvcName,
  SECRET_HASH_ANNOTATION,
  selectorLabels,
  serviceAccountName,
} from './names.ts';

type Obj = Record<string, any>;

export interface WorkloadInput {
  cr: LlamaStackDistribution;
  image: string;
  port: number;
  /** the ConfigMap holding config.yaml (generated or the user's override); none = the image's own config */
  config?: { configMap: string; key: string; hash?: string };
  secrets: readonly SecretRefUse[];
  secretHash?: string;
  /** the managed CA bundle ConfigMap and a hash of its content (a new bundle rolls the pods) */
  caBundle?: { configMap: string; hash: string };
}

function env(input: WorkloadInput, mountPath: string): Obj[] {
  const w = input.cr.spec.workload ?? {};
  const ours: Obj[] = [
    { name: 'HF_HOME', value: mountPath },
    { name: 'SQLITE_STORE_DIR', value: mountPath },
    ...(input.caBundle ? [{ name: 'SSL_CERT_FILE', value: `${CA_BUNDLE_DIR}/${CA_BUNDLE_KEY}` }] : []),
    { name: 'LLS_WORKERS', value: String(w.workers ?? 1) },
    { name: 'LLS_PORT', value: String(input.port) },
    { name: 'LLAMA_STACK_PORT', value: String(input.port) },
    ...(input.config ? [{ name: 'LLAMA_STACK_CONFIG', value: CONFIG_PATH }] : []),
    ...input.secrets.map((s) => ({ name: s.env, valueFrom: { secretKeyRef: { name: s.secret, key: s.key } } })),
  ];
  // the user's variables win over ours of the same name
  const user = (w.overrides?.env ?? []) as Obj[];
  const userNames = new Set(user.map((e) => e.name));
  return [...ours.filter((e) => !userNames.has(e.name)), ...user];
}

function resources(cr: LlamaStackDistribution): Obj {
  const w = cr.spec.workload ?? {};
  const r: Obj = structuredClone(w.resources ?? {});
  r.requests = { cpu: String(w.workers ?? 1), memory: '1Gi', ...(r.requests ?? {}) };
  if (w.workers !== undefined && !r.limits) r.limits = { ...r.requests };
  return r;
}

function volumes(input: WorkloadInput, mountPath: string): { volumes: Obj[]; mounts: Obj[] } {
  const { cr } = input;
  const storage = cr.spec.workload?.storage;
  const name = cr.metadata.name!;
  const volumes: Obj[] = [
    storage
      ? { name: 'lls-storage', persistentVolumeClaim: { claimName: pvcName(name) } }
      : { name: 'lls-storage', emptyDir: {} },
  ];
  const mounts: Obj[] = [{ name: 'lls-storage', mountPath }];
  if (input.config) {
    volumes.push({
      name: 'user-config',
      configMap: { name: input.config.configMap, items: [{ key: input.config.key, path: 'config.yaml' }] },
    });
    mounts.push({ name: 'user-config', mountPath: CONFIG_DIR, readOnly: true });
  }
  if (input.caBundle) {
    volumes.push({
      name: 'ca-bundle',
      configMap: { name: input.caBundle.configMap, items: [{ key: CA_BUNDLE_KEY, path: CA_BUNDLE_KEY }] },
    });
    mounts.push({ name: 'ca-bundle', mountPath: CA_BUNDLE_DIR, readOnly: true });
  }
  const o = cr.spec.workload?.overrides;
  return {
    volumes: [...volumes, ...((o?.volumes ?? []) as Obj[])],
    mounts: [...mounts, ...((o?.volumeMounts ?? []) as Obj[])],
  };
}

/** spread over zones and nodes when there is more than one replica and the user set no constraints */
function scheduling(cr: LlamaStackDistribution, replicas: number): Obj {
  const w = cr.spec.workload ?? {};
  if (w.topologySpreadConstraints?.length) return { topologySpreadConstraints: w.topologySpreadConstraints };
  if (replicas <= 1 && !w.autoscaling) return {};
  const labelSelector = { matchLabels: selectorLabels(cr.metadata.name!) };
  const keys = ['topology.kubernetes.io/region', 'topology.kubernetes.io/zone', 'kubernetes.io/hostname'];
  return {
    topologySpreadConstraints: keys.map((topologyKey) => ({
      maxSkew: 1,
      topologyKey,
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector,
    })),
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector } },
        ],
      },
    },
  };
}

export function buildDeployment(input: WorkloadInput): KubeObject {
  const { cr, port } = input;
  const name = cr.metadata.name!;
  const w = cr.spec.workload ?? {};
  const o = w.overrides ?? {};
  const mountPath = w.storage?.mountPath ?? DEFAULT_MOUNT_PATH;
  const replicas = w.replicas ?? 1;
  const { volumes: vols, mounts } = volumes(input, mountPath);
  const annotations: Record<string, string> = {};
  if (input.config?.hash) annotations[CONFIG_HASH_ANNOTATION] = input.config.hash.slice(0, 16);
  if (input.secretHash) annotations[SECRET_HASH_ANNOTATION] = input.secretHash;
  if (input.caBundle) annotations[CA_BUNDLE_HASH_ANNOTATION] = input.caBundle.hash;
  const run = ['llama', 'stack', 'run', CONFIG_PATH];
  // postgres storage: the connection string is split into the backend's fields at start-up
  const split = input.secrets.some((s) => s.env === SQL_CONNECTION_STRING_ENV);
  const command = o.command ?? (input.config ? (split ? withConnectionStringSplit(run) : run) : undefined);
  const args = o.args ?? (input.config && !o.command ? ['--port', String(port)] : undefined);
  const container: Obj = {
    name: containerNameOf(cr),
    image: input.image,
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    env: env(input, mountPath),
    resources: resources(cr),
    volumeMounts: mounts,
    startupProbe: {
      httpGet: { path: '/v1/health', port },
      initialDelaySeconds: 15,
      timeoutSeconds: 30,
      failureThreshold: 3,
      successThreshold: 1,
    },
    ...(command ? { command } : {}),
    ...(args ? { args } : {}),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: cr.metadata.namespace, labels: objectLabels(name) },
    spec: {
      // the HPA owns replicas when autoscaling is on
      ...(w.autoscaling ? {} : { replicas }),
      selector: { matchLabels: selectorLabels(name) },
      // one old ReplicaSet: the previous config stays mounted for a rollback, older ones can be cleaned up
      revisionHistoryLimit: 1,
      // a volume holding sqlite files cannot be shared by old and new pods during a rolling update
      strategy: w.storage ? { type: 'Recreate' } : { type: 'RollingUpdate' },
      template: {
        metadata: { labels: objectLabels(name), ...(Object.keys(annotations).length ? { annotations } : {}) },
        spec: {
          serviceAccountName: o.serviceAccountName ?? serviceAccountName(name),
          ...(o.terminationGracePeriodSeconds !== undefined
            ? { terminationGracePeriodSeconds: o.terminationGracePeriodSeconds }
            : {}),
          securityContext: { fsGroup: 1001 },
          containers: [container],
          volumes: vols,
          ...scheduling(cr, replicas),
        },
      },
    },
  };
}
