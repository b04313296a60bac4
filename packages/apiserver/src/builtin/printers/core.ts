// Printers for core/v1 kinds other than Pod and its controllers: Service, Endpoints, Node, Namespace,
// Secret, ConfigMap, ServiceAccount, PersistentVolume(Claim), and Event (core/v1 and events.k8s.io/v1).
import { formatLabels } from '../../selectors/labels.ts';
import type { KubeObject } from '../../types.ts';
import { AGE, col, NAME, type Printer, SELECTOR } from './columns.ts';
import { age, arr, int, isSet, lbIngress, type Obj, path, present, rec, since, str, strMap } from './format.ts';

/** events.k8s.io/v1 objects carry the core/v1 Event fields under other names; print both the same way. */
function coreEvent(o: Obj): Obj {
  if (o.regarding === undefined && o.note === undefined && o.deprecatedSource === undefined) return o;
  return {
    ...o,
    involvedObject: o.regarding,
    message: o.note,
    source: o.deprecatedSource,
    firstTimestamp: o.deprecatedFirstTimestamp,
    lastTimestamp: o.deprecatedLastTimestamp,
    count: o.deprecatedCount,
  };
}

export const eventPrinter: Printer = {
  columns: () => [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col('Object', 'string', 'The object that this event is about.'),
    col(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      1,
    ),
    col('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    col(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      1,
    ),
    col('Count', 'string', 'The number of times this event has occurred.', 1),
    { ...NAME(), priority: 1 },
  ],
  row: (raw, now) => {
    const o = coreEvent(raw);
    const involved = rec(o.involvedObject);
    const first = isSet(o.firstTimestamp) ? since(o.firstTimestamp, now) : since(o.eventTime, now);
    let last = isSet(o.lastTimestamp) ? since(o.lastTimestamp, now) : first;
    let count = int(o.count);
    if (present(o.series)) {
      last = since(path(o, 'series', 'lastObservedTime'), now);
      count = int(path(o, 'series', 'count'));
    } else if (count === 0) {
      count = 1; // singleton events created through the new API have no count
    }
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) ? `${kind}/${str(involved.name)}` : kind;
    const component = str(path(o, 'source', 'component')) || str(o.reportingController);
    const instance = str(path(o, 'source', 'host')) || str(o.reportingInstance);
    const source = instance ? `${component}, ${instance}` : component;
    return [
      last,
      str(o.type),
      str(o.reason),
      target,
      str(involved.fieldPath),
      source,
      str(o.message).trim(),
      first,
      count,
      raw.metadata.name ?? '',
    ];
  },
};

function serviceExternalIP(svc: KubeObject): string {
  const spec = rec(svc.spec);
  const externalIPs = arr(spec.externalIPs).map(str);
  switch (str(spec.type)) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = lbIngress(svc.status);
      if (externalIPs.length > 0) return [...(lb ? lb.split(',') : []), ...externalIPs].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
  }
  return '<unknown>';
}

export const servicePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Type', 'string', 'type determines how the Service is exposed.'),
    col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    col(
      'External-IP',
      'string',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    ),
    col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    AGE(),
    SELECTOR('Route service traffic to pods with label keys and values matching this selector.'),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const ips = arr(spec.clusterIPs).map(str);
    const clusterIP = ips[0] || str(spec.clusterIP) || '<none>';
    const ports = arr(spec.ports)
      .map(rec)
      .map((p) =>
        int(p.nodePort) > 0
          ? `${int(p.port)}:${int(p.nodePort)}/${str(p.protocol)}`
          : `${int(p.port)}/${str(p.protocol)}`,
      )
      .join(',');
    return [
      o.metadata.name ?? '',
      str(spec.type),
      clusterIP,
      serviceExternalIP(o),
      ports || '<none>',
      age(o, now),
      formatLabels(strMap(spec.selector)),
    ];
  },
};

/** net.JoinHostPort: IPv6 addresses get brackets. */
const joinHostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

function formatEndpoints(o: KubeObject): string {
  const subsets = arr(o.subsets).map(rec);
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  const add = (v: string) => {
    if (list.length === max) more = true;
    else list.push(v);
  };
  for (const ss of subsets) {
    const addresses = arr(ss.addresses).map(rec);
    const ports = arr(ss.ports).map(rec);
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        add(str(a.ip));
        if (more) break;
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        add(joinHostPort(str(a.ip), int(port.port)));
        if (more) break;
      }
    }
  }
  return more ? `${list.join(',')} + ${count - max} more...` : list.join(',');
}

export const endpointsPrinter: Printer = {
  columns: () => [NAME(), col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', formatEndpoints(o), age(o, now)],
};

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';

export const nodePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    AGE(),
    col('Version', 'string', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('External-IP', 'string', 'List of addresses reachable to the node.', 1),
    col(
      'OS-Image',
      'string',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      1,
    ),
    col(
      'Kernel-Version',
      'string',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    col(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      1,
    ),
  ],
  row: (o, now) => {
    const status = rec(o.status);
    // the last Ready condition wins, as kube builds a map keyed by type
    const readyCond = arr(status.conditions)
      .map(rec)
      .filter((c) => c.type === 'Ready')
      .pop();
    const states = readyCond ? [readyCond.status === 'True' ? 'Ready' : 'NotReady'] : ['Unknown'];
    if (path(o, 'spec', 'unschedulable') === true) states.push('SchedulingDisabled');
    const roles = new Set<string>();
    for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
      if (k.startsWith(NODE_ROLE_PREFIX) && k.length > NODE_ROLE_PREFIX.length)
        roles.add(k.slice(NODE_ROLE_PREFIX.length));
      else if (k === 'kubernetes.io/role' && v) roles.add(v);
    }
    const address = (type: string) =>
      str(
        arr(status.addresses)
          .map(rec)
          .find((a) => a.type === type)?.address,
      ) || '<none>';
    const info = rec(status.nodeInfo);
    return [
      o.metadata.name ?? '',
      states.join(','),
      [...roles].sort().join(',') || '<none>',
      age(o, now),
      str(info.kubeletVersion),
      address('InternalIP'),
      address('ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};

export const namespacePrinter: Printer = {
  columns: () => [NAME(), col('Status', 'string', 'The status of the namespace'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', str(path(o, 'status', 'phase')), age(o, now)],
};

export const secretPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    col('Data', 'string', 'Data contains the secret data.'),
    AGE(),
  ],
  row: (o, now) => {
    // stringData is merged into data on write; count the union in case an object still carries both
    const keys = new Set([...Object.keys(rec(o.data)), ...Object.keys(rec(o.stringData))]);
    return [o.metadata.name ?? '', str(o.type), keys.size, age(o, now)];
  },
};

export const configMapPrinter: Printer = {
  columns: () => [NAME(), col('Data', 'string', 'Data contains the configuration data.'), AGE()],
  row: (o, now) => [
    o.metadata.name ?? '',
    Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length,
    age(o, now),
  ],
};

export const serviceAccountPrinter: Printer = {
  columns: () => [
    NAME(),
    col(
      'Secrets',
      'string',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    ),
    AGE(),
  ],
  row: (o, now) => [o.metadata.name ?? '', arr(o.secrets).length, age(o, now)],
};

/** helper.GetAccessModesAsString: fixed order, duplicates dropped. */
function accessModes(modes: unknown): string {
  const have = new Set(arr(modes).map(str));
  return [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
    .filter(([mode]) => have.has(mode!))
    .map(([, short]) => short)
    .join(',');
}

const STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const storageClassOf = (o: KubeObject) =>
  o.metadata.annotations?.[STORAGE_CLASS_ANNOTATION] ?? str(path(o, 'spec', 'storageClassName'));

export const pvPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
    col('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    col(
      'Reclaim Policy',
      'string',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
    ),
    col('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    col(
      'Claim',
      'string',
      'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
    ),
    col('StorageClass', 'string', 'StorageClass of the pv'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    col(
      'Reason',
      'string',
      'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    ),
    AGE(),
    col(
      'VolumeMode',
      'string',
      'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      1,
    ),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const claim = present(spec.claimRef)
      ? `${str(path(spec, 'claimRef', 'namespace'))}/${str(path(spec, 'claimRef', 'name'))}`
      : '';
    const phase = isSet(o.metadata.deletionTimestamp) ? 'Terminating' : str(path(o, 'status', 'phase'));
    return [
      o.metadata.name ?? '',
      str(path(spec, 'capacity', 'storage')) || '0',
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      phase,
      claim,
      storageClassOf(o),
      str(spec.volumeAttributesClassName) || '<unset>',
      str(path(o, 'status', 'reason')),
      age(o, now),
      str(spec.volumeMode) || '<unset>',
    ];
  },
};

export const pvcPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    col('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    col('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    col('StorageClass', 'string', 'StorageClass of the pvc'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE(),
    col('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const bound = str(spec.volumeName) !== '';
    return [
      o.metadata.name ?? '',
      isSet(o.metadata.deletionTimestamp) ? 'Terminating' : str(status.phase),
      str(spec.volumeName),
      bound ? str(path(status, 'capacity', 'storage')) || '0' : '',
      bound ? accessModes(status.accessModes) : '',
      storageClassOf(o),
      str(spec.volumeAttributesClassName) || '<unset>',
      age(o, now),
      str(spec.volumeMode) || '<unset>',
    ];
  },
};
