// Printers for the non-core API groups: discovery, networking, storage, coordination, scheduling, rbac,
// admissionregistration, autoscaling and policy.
import { formatLabelSelector } from '../../selectors/labels.ts';
import type { KubeObject } from '../../types.ts';
import { AGE, col, NAME, type Printer } from './columns.ts';
import { age, arr, int, intOrString, lbIngress, type Obj, path, present, rec, str } from './format.ts';

function listWithMore(items: string[], max: number): string {
  if (items.length > max) return `${items.slice(0, max).join(',')} + ${items.length - max} more...`;
  return items.length > 0 ? items.join(',') : '<unset>';
}

export const endpointSlicePrinter: Printer = {
  columns: () => [
    NAME(),
    col('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
    col('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
    col('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
    AGE(),
  ],
  row: (o, now) => {
    const ports = arr(o.ports)
      .map(rec)
      .map((p) => (typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*'));
    const addresses = arr(o.endpoints).flatMap((e) => arr(rec(e).addresses).map(str));
    return [o.metadata.name ?? '', str(o.addressType), listWithMore(ports, 3), listWithMore(addresses, 3), age(o, now)];
  },
};

function ingressHosts(rules: unknown): string {
  const all = arr(rules).map(rec);
  const list: string[] = [];
  let more = false;
  for (const rule of all) {
    if (list.length === 3) more = true;
    if (!more && str(rule.host)) list.push(str(rule.host));
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${all.length - 3} more...` : list.join(',');
}

export const ingressPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE(),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    return [
      o.metadata.name ?? '',
      str(spec.ingressClassName) || '<none>',
      ingressHosts(spec.rules),
      lbIngress(o.status),
      arr(spec.tls).length > 0 ? '80, 443' : '80',
      age(o, now),
    ];
  },
};

export const ingressClassPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Controller', 'string', 'Controller that is responsible for handling this class'),
    col('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE(),
  ],
  row: (o, now) => {
    const params = path(o, 'spec', 'parameters');
    let parameters = '<none>';
    if (present(params)) {
      const p = rec(params);
      parameters = `${str(p.kind)}${typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : ''}/${str(p.name)}`;
    }
    return [o.metadata.name ?? '', str(path(o, 'spec', 'controller')), parameters, age(o, now)];
  },
};

export const networkPolicyPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.'),
    AGE(),
  ],
  row: (o, now) => [o.metadata.name ?? '', formatLabelSelector(rec(path(o, 'spec', 'podSelector'))), age(o, now)],
};

const isDefaultClass = (o: KubeObject, annotation: string) =>
  o.metadata.annotations?.[annotation] === 'true' ||
  o.metadata.annotations?.[annotation.replace('.kubernetes.io', '.beta.kubernetes.io')] === 'true';

export const storageClassPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    col(
      'ReclaimPolicy',
      'string',
      'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.',
    ),
    col(
      'VolumeBindingMode',
      'string',
      'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
    ),
    col('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    AGE(),
  ],
  row: (o, now) => [
    `${o.metadata.name ?? ''}${isDefaultClass(o, 'storageclass.kubernetes.io/is-default-class') ? ' (default)' : ''}`,
    str(o.provisioner),
    str(o.reclaimPolicy) || 'Delete',
    str(o.volumeBindingMode) || 'Immediate',
    o.allowVolumeExpansion === true,
    age(o, now),
  ],
};

export const leasePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'),
    AGE(),
  ],
  row: (o, now) => [o.metadata.name ?? '', str(path(o, 'spec', 'holderIdentity')), age(o, now)],
};

export const priorityClassPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Value', 'integer', 'value represents the integer value of this priority class.'),
    col(
      'Global-Default',
      'boolean',
      'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
    ),
    AGE(),
    col('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority.', 1),
  ],
  row: (o, now) => [
    o.metadata.name ?? '',
    int(o.value),
    o.globalDefault === true,
    age(o, now),
    str(o.preemptionPolicy),
  ],
};

export const bindingPrinter = (what: string): Printer => ({
  columns: () => [
    NAME(),
    col(
      'Role',
      'string',
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
    ),
    AGE(),
    col('Users', 'string', `Users in the ${what}`, 1),
    col('Groups', 'string', `Groups in the ${what}`, 1),
    col('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, 1),
  ],
  row: (o, now) => {
    const users: string[] = [];
    const groups: string[] = [];
    const sas: string[] = [];
    for (const s of arr(o.subjects).map(rec)) {
      if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
      else if (s.kind === 'User') users.push(str(s.name));
      else if (s.kind === 'Group') groups.push(str(s.name));
    }
    const ref = rec(o.roleRef);
    return [
      o.metadata.name ?? '',
      `${str(ref.kind)}/${str(ref.name)}`,
      age(o, now),
      users.join(', '),
      groups.join(', '),
      sas.join(', '),
    ];
  },
});

export const webhookConfigPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    AGE(),
  ],
  row: (o, now) => [o.metadata.name ?? '', arr(o.webhooks).length, age(o, now)],
};

/** autoscaling/v1 objects carry one CPU target; express it as the v2 metric kube converts it to. */
function hpaMetrics(o: KubeObject): { specs: Obj[]; statuses: Obj[] } {
  const spec = rec(o.spec);
  const status = rec(o.status);
  if (spec.metrics !== undefined || !present(spec.targetCPUUtilizationPercentage)) {
    return { specs: arr(spec.metrics).map(rec), statuses: arr(status.currentMetrics).map(rec) };
  }
  const cpu = (current: Obj) => ({ type: 'Resource', resource: { name: 'cpu', ...current } });
  const statuses = present(status.currentCPUUtilizationPercentage)
    ? [cpu({ current: { averageUtilization: status.currentCPUUtilizationPercentage } })]
    : [];
  return {
    specs: [cpu({ target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } })],
    statuses,
  };
}

/** formatHPAMetrics: `cpu: 40%/80%` style targets, at most two then `+ N more...`. */
function formatHPAMetrics(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const status = statuses[i] ? rec(statuses[i]) : undefined;
    const type = str(spec.type);
    const source = rec(
      spec[
        {
          External: 'external',
          Pods: 'pods',
          Object: 'object',
          Resource: 'resource',
          ContainerResource: 'containerResource',
        }[type] ?? ''
      ],
    );
    const current = status
      ? rec(
          path(
            status,
            {
              External: 'external',
              Pods: 'pods',
              Object: 'object',
              Resource: 'resource',
              ContainerResource: 'containerResource',
            }[type] ?? '',
            'current',
          ),
        )
      : undefined;
    const target = rec(source.target);
    switch (type) {
      case 'External':
      case 'Object':
        if (present(target.averageValue))
          return `${str(current?.averageValue) || '<unknown>'}/${str(target.averageValue)} (avg)`;
        return `${(current && str(current.value)) || '<unknown>'}/${str(target.value)}`;
      case 'Pods':
        return `${(current && str(current.averageValue)) || '<unknown>'}/${str(target.averageValue)}`;
      case 'Resource':
      case 'ContainerResource': {
        const name = str(source.name);
        if (present(target.averageValue))
          return `${name}: ${(current && str(current.averageValue)) || '<unknown>'}/${str(target.averageValue)}`;
        const cur =
          current && present(current.averageUtilization) ? `${int(current.averageUtilization)}%` : '<unknown>';
        const want = present(target.averageUtilization) ? `${int(target.averageUtilization)}%` : '<auto>';
        return `${name}: ${cur}/${want}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

export const hpaPrinter: Printer = {
  columns: () => [
    NAME(),
    col(
      'Reference',
      'string',
      'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
    ),
    col(
      'Targets',
      'string',
      'metrics contains the specifications for which to use to calculate the desired replica count.',
    ),
    col(
      'MinPods',
      'string',
      'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.',
    ),
    col(
      'MaxPods',
      'string',
      'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.',
    ),
    col(
      'Replicas',
      'string',
      'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
    ),
    AGE(),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const ref = rec(spec.scaleTargetRef);
    const { specs, statuses } = hpaMetrics(o);
    return [
      o.metadata.name ?? '',
      `${str(ref.kind)}/${str(ref.name)}`,
      formatHPAMetrics(specs, statuses),
      present(spec.minReplicas) ? String(int(spec.minReplicas)) : '<unset>',
      int(spec.maxReplicas),
      int(path(o, 'status', 'currentReplicas')),
      age(o, now),
    ];
  },
};

export const pdbPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE(),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    return [
      o.metadata.name ?? '',
      present(spec.minAvailable) ? intOrString(spec.minAvailable) : 'N/A',
      present(spec.maxUnavailable) ? intOrString(spec.maxUnavailable) : 'N/A',
      int(path(o, 'status', 'disruptionsAllowed')),
      age(o, now),
    ];
  },
};
