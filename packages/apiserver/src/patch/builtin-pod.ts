// Patch schemas of core/v1 pod-related types, with the list types, map keys and strategic merge
// tags of the Go types in k8s.io/api (listType/listMapKey markers for apply, patchStrategy and
// patchMergeKey tags for strategic merge; where they disagree each side keeps its own).
import {
  atomicList,
  atomicMap,
  atomicStruct,
  mapList,
  mapOf,
  objectMetaSchema,
  type PatchSchema,
  SCALAR,
  struct,
  zero,
} from './schema.ts';

/** metav1.LabelSelector is `+structType=atomic`. */
export const labelSelector = atomicStruct();

/** `conditions` lists keyed by type (merge key type for strategic merge). */
export const conditionsByType = mapList(['type'], struct({}));

/** Lists that apply treats as atomic but strategic merge merges by key. */
export function atomicMergeList(mergeKey: string, item: PatchSchema = struct({})) {
  return atomicList(item, { patchStrategy: 'merge', patchMergeKey: mergeKey });
}

export const resourceRequirements = struct({
  limits: mapOf(SCALAR),
  requests: mapOf(SCALAR),
  claims: mapList(['name'], struct({}), { smp: false }),
});

const keyToPathItems = struct({ items: atomicList() });

const probeHandler = {
  exec: struct({ command: atomicList(SCALAR) }),
  httpGet: struct({ httpHeaders: atomicList() }),
  tcpSocket: struct({}),
  grpc: struct({}),
  sleep: struct({}),
};
const probe = struct(probeHandler);
const lifecycleHandler = struct(probeHandler);

const containerSecurityContext = struct({
  capabilities: struct({ add: atomicList(SCALAR), drop: atomicList(SCALAR) }),
  seLinuxOptions: struct({}),
  windowsOptions: struct({}),
  seccompProfile: struct({}),
  appArmorProfile: struct({}),
});

const envVarSource = struct({
  fieldRef: struct({}),
  resourceFieldRef: struct({}),
  configMapKeyRef: struct({}),
  secretKeyRef: struct({}),
});

export const container = struct({
  name: SCALAR,
  image: SCALAR,
  command: atomicList(SCALAR),
  args: atomicList(SCALAR),
  ports: mapList(['containerPort', 'protocol'], struct({}), { keyDefaults: { protocol: 'TCP' } }),
  envFrom: atomicList(),
  env: mapList(['name'], struct({ valueFrom: envVarSource })),
  // ResourceRequirements is a non-pointer field of Container
  resources: zero(resourceRequirements),
  resizePolicy: atomicList(),
  volumeMounts: mapList(['mountPath'], struct({})),
  volumeDevices: mapList(['devicePath'], struct({})),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: struct({ postStart: lifecycleHandler, preStop: lifecycleHandler }),
  securityContext: containerSecurityContext,
});

export const persistentVolumeClaimSpec = struct({
  accessModes: atomicList(SCALAR),
  selector: labelSelector,
  // VolumeResourceRequirements is a non-pointer field of PersistentVolumeClaimSpec
  resources: zero(struct({ limits: mapOf(SCALAR), requests: mapOf(SCALAR) })),
  dataSource: struct({}),
  dataSourceRef: struct({}),
});

const volume = struct({
  configMap: keyToPathItems,
  secret: keyToPathItems,
  downwardAPI: keyToPathItems,
  projected: struct({ sources: atomicList() }),
  csi: struct({ volumeAttributes: mapOf(SCALAR) }),
  ephemeral: struct({
    volumeClaimTemplate: struct({ metadata: objectMetaSchema, spec: zero(persistentVolumeClaimSpec) }),
  }),
  emptyDir: struct({}),
  hostPath: struct({}),
  persistentVolumeClaim: struct({}),
});

const nodeAffinity = struct({
  // NodeSelector and its terms are `+structType=atomic`
  requiredDuringSchedulingIgnoredDuringExecution: atomicStruct(),
  preferredDuringSchedulingIgnoredDuringExecution: atomicList(),
});
const podAffinity = struct({
  requiredDuringSchedulingIgnoredDuringExecution: atomicList(),
  preferredDuringSchedulingIgnoredDuringExecution: atomicList(),
});

export const podSpec = struct({
  volumes: mapList(['name'], volume),
  initContainers: mapList(['name'], container),
  // `json:"containers"` without omitempty: null in the Go zero value
  containers: zero(mapList(['name'], container), 'null'),
  ephemeralContainers: mapList(['name'], container),
  imagePullSecrets: mapList(['name'], struct({})),
  nodeSelector: atomicMap(),
  affinity: struct({ nodeAffinity, podAffinity, podAntiAffinity: podAffinity }),
  tolerations: atomicList(),
  hostAliases: mapList(['ip'], struct({ hostnames: atomicList(SCALAR) })),
  dnsConfig: struct({ nameservers: atomicList(SCALAR), searches: atomicList(SCALAR), options: atomicList() }),
  readinessGates: atomicList(),
  topologySpreadConstraints: mapList(
    ['topologyKey', 'whenUnsatisfiable'],
    struct({ labelSelector, matchLabelKeys: atomicList(SCALAR) }),
  ),
  securityContext: struct({
    supplementalGroups: atomicList(SCALAR),
    sysctls: atomicList(),
    seLinuxOptions: struct({}),
    windowsOptions: struct({}),
    seccompProfile: struct({}),
    appArmorProfile: struct({}),
  }),
  overhead: mapOf(SCALAR),
  schedulingGates: mapList(['name'], struct({})),
  resourceClaims: mapList(['name'], struct({})),
  resources: resourceRequirements,
  os: struct({}),
});

export const podStatus = struct({
  conditions: conditionsByType,
  podIPs: mapList(['ip'], struct({})),
  hostIPs: atomicMergeList('ip'),
  containerStatuses: atomicList(),
  initContainerStatuses: atomicList(),
  ephemeralContainerStatuses: atomicList(),
  resourceClaimStatuses: mapList(['name'], struct({})),
});

/** PodTemplateSpec as a non-pointer field: metadata and spec present in the zero value. */
export const podTemplateSpec = zero(struct({ metadata: objectMetaSchema, spec: zero(podSpec) }));
