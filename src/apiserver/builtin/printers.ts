// Table columns and cells for built-in kinds, matching kube-apiserver's pkg/printers/internalversion (what
// `kubectl get` shows against a real cluster). The server always prints the wide form; kubectl hides the
// priority-1 columns unless -o wide. Cells are strings, integers or booleans exactly where kube uses them.
// Kinds without a printer get kube's default table (Name, Created At), as Roles and CRDs do in kube.
import { formatLabelSelector, formatLabels, labelSelectorFromObject } from '../selectors/labels.ts';
import type { KubeObject } from '../types.ts';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: 'Completed';
  status: 'True';
  reason: string;
  message: string;
}

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, for a duration in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

// ---- loose JSON accessors (stored objects are plain JSON; missing fields read as Go zero values) ------

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const int = (v: unknown): number => (typeof v === 'number' ? Math.trunc(v) : 0);
const path = (o: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((cur, k) => rec(cur)[k], o);
const present = (v: unknown): boolean => v !== undefined && v !== null;
const strMap = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(rec(v)).map(([k, x]) => [k, str(x)]));

/** translateTimestampSince: `<unknown>` for an unset time. */
function since(ts: unknown, now: number): string {
  const t = typeof ts === 'string' && ts ? Date.parse(ts) : Number.NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

function isSet(ts: unknown): boolean {
  return typeof ts === 'string' && ts !== '' && !Number.isNaN(Date.parse(ts));
}

/** IntOrString.String() */
function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

function containerCells(podSpec: unknown): [string, string] {
  const cs = arr(rec(podSpec).containers).map(rec);
  return [cs.map((c) => str(c.name)).join(','), cs.map((c) => str(c.image)).join(',')];
}

function selectorString(selector: unknown): string {
  try {
    return labelSelectorFromObject(selector as never).toString();
  } catch {
    return '<invalid>';
  }
}

// ---- columns ------------------------------------------------------------------------------------------

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const col = (name: string, type: string, description: string, priority = 0): TableColumnDefinition => ({ name, type, format: '', description, priority });
const NAME = (): TableColumnDefinition => ({ name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 });
const AGE = () => col('Age', 'string', CREATED_DOC);
const WIDE_TEMPLATE = () => [
  col('Containers', 'string', 'Names of each container in the template.', 1),
  col('Images', 'string', 'Images referenced by each container in the template.', 1),
];
const SELECTOR = (doc: string) => col('Selector', 'string', doc, 1);

const DEFAULT_COLUMNS = (): TableColumnDefinition[] => [NAME(), col('Created At', 'date', CREATED_DOC)];

/** rest.NewDefaultTableConvertor's row: name and the creation time in RFC 3339 (UTC, whole seconds). */
function defaultRow(o: KubeObject): unknown[] {
  const ts = o.metadata?.creationTimestamp;
  const created = isSet(ts) ? `${new Date(Date.parse(ts!)).toISOString().slice(0, 19)}Z` : '0001-01-01T00:00:00Z';
  return [o.metadata?.name ?? '', created];
}

interface Printer {
  columns: () => TableColumnDefinition[];
  row: (o: KubeObject, now: number) => unknown[];
}

// ---- Pod ----------------------------------------------------------------------------------------------

const isRestartableInit = (c: Obj | undefined) => c?.restartPolicy === 'Always';

function conditionStatus(conditions: unknown, type: string): string | undefined {
  return str(arr(conditions).map(rec).find((c) => c.type === type)?.status) || undefined;
}

/** The STATUS column: kube's reason logic over phase, init containers, containers and deletion. */
function podStatus(pod: Obj, now: number): { ready: number; total: number; reason: string; restarts: string } {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  let restarts = 0;
  let restartableInitRestarts = 0;
  let ready = 0;
  let total = arr(spec.containers).length;
  let lastRestart = 0;
  let lastRestartableInitRestart = 0;
  for (const c of arr(status.conditions).map(rec)) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const initSpecs = new Map<string, Obj>();
  const initContainers = arr(spec.initContainers).map(rec);
  for (const c of initContainers) {
    initSpecs.set(str(c.name), c);
    if (isRestartableInit(c)) total++;
  }
  const finishedAt = (cs: Obj) => {
    const t = path(cs, 'lastTerminationState', 'terminated', 'finishedAt');
    return isSet(t) ? Date.parse(t as string) : 0;
  };
  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses).map(rec);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    const restartable = isRestartableInit(initSpecs.get(str(cs.name)));
    restarts += int(cs.restartCount);
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    if (restartable) {
      restartableInitRestarts += int(cs.restartCount);
      lastRestartableInitRestart = Math.max(lastRestartableInitRestart, finishedAt(cs));
    }
    const terminated = rec(path(cs, 'state', 'terminated'));
    const hasTerminated = present(path(cs, 'state', 'terminated'));
    const waitingReason = str(path(cs, 'state', 'waiting', 'reason'));
    if (hasTerminated && int(terminated.exitCode) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (hasTerminated) {
      if (!str(terminated.reason)) reason = int(terminated.signal) !== 0 ? `Init:Signal:${int(terminated.signal)}` : `Init:ExitCode:${int(terminated.exitCode)}`;
      else reason = `Init:${str(terminated.reason)}`;
    } else if (waitingReason && waitingReason !== 'PodInitializing') {
      reason = `Init:${waitingReason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }
  if (!initializing || conditionStatus(status.conditions, 'Initialized') === 'True') {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses).map(rec);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      restarts += int(cs.restartCount);
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const state = rec(cs.state);
      const waitingReason = str(path(state, 'waiting', 'reason'));
      const terminated = present(state.terminated) ? rec(state.terminated) : undefined;
      if (waitingReason) reason = waitingReason;
      else if (terminated && str(terminated.reason)) reason = str(terminated.reason);
      else if (terminated) reason = int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      else if (cs.ready === true && present(state.running)) {
        hasRunning = true;
        ready++;
      }
    }
    // a pod whose last container completed but another still runs is Running (or NotReady)
    if (reason === 'Completed' && hasRunning) reason = conditionStatus(status.conditions, 'Ready') === 'True' ? 'Running' : 'NotReady';
  }
  const deleting = isSet(rec(pod.metadata).deletionTimestamp);
  if (deleting && str(status.reason) === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const restartsStr = restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  return { ready, total, reason, restarts: restartsStr };
}

const podPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE(),
    col('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    col('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
    col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
    col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const s = podStatus(o, now);
    const ips = arr(status.podIPs);
    const podIP = (ips.length > 0 ? str(rec(ips[0]).ip) : str(status.podIP)) || '<none>';
    const gates = arr(spec.readinessGates).map(rec);
    let readinessGates = '<none>';
    if (gates.length > 0) {
      const trueCount = gates.filter((g) => conditionStatus(status.conditions, str(g.conditionType)) === 'True').length;
      readinessGates = `${trueCount}/${gates.length}`;
    }
    return [
      o.metadata.name ?? '',
      `${s.ready}/${s.total}`,
      s.reason,
      s.restarts,
      since(o.metadata.creationTimestamp, now),
      podIP,
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      readinessGates,
    ];
  },
};

// ---- Event --------------------------------------------------------------------------------------------

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

const eventPrinter: Printer = {
  columns: () => [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    col('Object', 'string', 'The object that this event is about.'),
    col('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', 1),
    col('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    col('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
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
    return [last, str(o.type), str(o.reason), target, str(involved.fieldPath), source, str(o.message).trim(), first, count, raw.metadata.name ?? ''];
  },
};

// ---- workloads ----------------------------------------------------------------------------------------

const age = (o: KubeObject, now: number) => since(o.metadata.creationTimestamp, now);
const templateSpec = (o: KubeObject) => path(o, 'spec', 'template', 'spec');

const deploymentPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Ready', 'string', 'Number of the pod with ready state'),
    col('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    col('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    AGE(),
    ...WIDE_TEMPLATE(),
    SELECTOR('Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.'),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    return [
      o.metadata.name ?? '',
      `${int(status.readyReplicas)}/${int(spec.replicas)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      age(o, now),
      ...containerCells(templateSpec(o)),
      selectorString(spec.selector),
    ];
  },
};

const replicaSetColumns = (kindDoc: string) => () => [
  NAME(),
  col('Desired', 'integer', 'Replicas is the number of desired replicas.'),
  col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
  col('Ready', 'integer', `The number of ready replicas for this ${kindDoc}.`),
  AGE(),
  ...WIDE_TEMPLATE(),
  SELECTOR('Selector is a label query over pods that should match the replica count.'),
];

const replicaSetPrinter: Printer = {
  columns: replicaSetColumns('replica set'),
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    return [o.metadata.name ?? '', int(spec.replicas), int(status.replicas), int(status.readyReplicas), age(o, now), ...containerCells(templateSpec(o)), formatLabelSelector(spec.selector as never)];
  },
};

const replicationControllerPrinter: Printer = {
  columns: replicaSetColumns('replication controller'),
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    return [o.metadata.name ?? '', int(spec.replicas), int(status.replicas), int(status.readyReplicas), age(o, now), ...containerCells(templateSpec(o)), formatLabels(strMap(spec.selector))];
  },
};

const statefulSetPrinter: Printer = {
  columns: () => [NAME(), col('Ready', 'string', 'Number of the pod with ready state'), AGE(), ...WIDE_TEMPLATE()],
  row: (o, now) => [o.metadata.name ?? '', `${int(path(o, 'status', 'readyReplicas'))}/${int(path(o, 'spec', 'replicas'))}`, age(o, now), ...containerCells(templateSpec(o))],
};

const daemonSetPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
    col('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    col('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
    col('Node Selector', 'string', "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node."),
    AGE(),
    ...WIDE_TEMPLATE(),
    SELECTOR('A label query over pods that are managed by the daemon set.'),
  ],
  row: (o, now) => {
    const st = rec(o.status);
    return [
      o.metadata.name ?? '',
      int(st.desiredNumberScheduled),
      int(st.currentNumberScheduled),
      int(st.numberReady),
      int(st.updatedNumberScheduled),
      int(st.numberAvailable),
      formatLabels(strMap(path(templateSpec(o), 'nodeSelector'))),
      age(o, now),
      ...containerCells(templateSpec(o)),
      formatLabelSelector(path(o, 'spec', 'selector') as never),
    ];
  },
};

/** hasJobCondition: the first condition of that type decides. */
function jobCondition(conditions: unknown, type: string): boolean {
  return conditionStatus(conditions, type) === 'True';
}

const jobPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Status', 'string', 'Status of the job.'),
    col('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
    col('Duration', 'string', 'Time required to complete the job.'),
    AGE(),
    ...WIDE_TEMPLATE(),
    SELECTOR('A label query over pods that should match the pod count.'),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const st = rec(o.status);
    const succeeded = int(st.succeeded);
    let completions: string;
    if (present(spec.completions)) completions = `${succeeded}/${int(spec.completions)}`;
    else completions = int(spec.parallelism) > 1 ? `${succeeded}/1 of ${int(spec.parallelism)}` : `${succeeded}/1`;
    let duration = '';
    if (isSet(st.startTime)) {
      const start = Date.parse(st.startTime as string);
      duration = humanDuration((isSet(st.completionTime) ? Date.parse(st.completionTime as string) : now) - start);
    }
    let status = 'Running';
    if (jobCondition(st.conditions, 'Complete')) status = 'Complete';
    else if (jobCondition(st.conditions, 'Failed')) status = 'Failed';
    else if (isSet(o.metadata.deletionTimestamp)) status = 'Terminating';
    else if (jobCondition(st.conditions, 'Suspended')) status = 'Suspended';
    else if (jobCondition(st.conditions, 'FailureTarget')) status = 'FailureTarget';
    return [o.metadata.name ?? '', status, completions, duration, age(o, now), ...containerCells(templateSpec(o)), formatLabelSelector(spec.selector as never)];
  },
};

const printBoolPtr = (v: unknown) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>');

const cronJobPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    col('Timezone', 'string', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
    col('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.'),
    col('Active', 'integer', 'A list of pointers to currently running jobs.'),
    col('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
    AGE(),
    ...WIDE_TEMPLATE(),
    SELECTOR('A label query over pods that should match the pod count.'),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const jobSpec = path(spec, 'jobTemplate', 'spec');
    const last = path(o, 'status', 'lastScheduleTime');
    return [
      o.metadata.name ?? '',
      str(spec.schedule),
      str(spec.timeZone) || '<none>',
      printBoolPtr(spec.suspend),
      arr(path(o, 'status', 'active')).length,
      isSet(last) ? since(last, now) : '<none>',
      age(o, now),
      ...containerCells(path(jobSpec, 'template', 'spec')),
      formatLabelSelector(path(jobSpec, 'selector') as never),
    ];
  },
};

const podTemplatePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Containers', 'string', 'Names of each container in the template.'),
    col('Images', 'string', 'Images referenced by each container in the template.'),
    col('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  row: (o) => [o.metadata.name ?? '', ...containerCells(path(o, 'template', 'spec')), formatLabels(strMap(path(o, 'template', 'metadata', 'labels')))],
};

const controllerRevisionPrinter: Printer = {
  columns: () => [NAME(), col('Controller', 'string', 'Controller of the object'), col('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'), AGE()],
  row: (o, now) => {
    const ref = arr(o.metadata.ownerReferences).map(rec).find((r) => r.controller === true);
    let controller = '<none>';
    if (ref) {
      const apiVersion = str(ref.apiVersion);
      const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
      const kind = str(ref.kind);
      controller = kind || group ? `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${str(ref.name)}` : str(ref.name);
    }
    return [o.metadata.name ?? '', controller, int(o.revision), age(o, now)];
  },
};

// ---- networking ---------------------------------------------------------------------------------------

/** Load-balancer ingress points: IP, else hostname; sorted and de-duplicated (never clipped: the server prints wide). */
function lbIngress(status: unknown): string {
  const set = new Set<string>();
  for (const ing of arr(path(status, 'loadBalancer', 'ingress')).map(rec)) {
    const v = str(ing.ip) || str(ing.hostname);
    if (v) set.add(v);
  }
  return [...set].sort().join(',');
}

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

const servicePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Type', 'string', 'type determines how the Service is exposed.'),
    col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    col('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
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
      .map((p) => (int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${str(p.protocol)}` : `${int(p.port)}/${str(p.protocol)}`))
      .join(',');
    return [o.metadata.name ?? '', str(spec.type), clusterIP, serviceExternalIP(o), ports || '<none>', age(o, now), formatLabels(strMap(spec.selector))];
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

const endpointsPrinter: Printer = {
  columns: () => [NAME(), col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', formatEndpoints(o), age(o, now)],
};

function listWithMore(items: string[], max: number): string {
  if (items.length > max) return `${items.slice(0, max).join(',')} + ${items.length - max} more...`;
  return items.length > 0 ? items.join(',') : '<unset>';
}

const endpointSlicePrinter: Printer = {
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

const ingressPrinter: Printer = {
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
    return [o.metadata.name ?? '', str(spec.ingressClassName) || '<none>', ingressHosts(spec.rules), lbIngress(o.status), arr(spec.tls).length > 0 ? '80, 443' : '80', age(o, now)];
  },
};

const ingressClassPrinter: Printer = {
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

const networkPolicyPrinter: Printer = {
  columns: () => [NAME(), col('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', formatLabelSelector(rec(path(o, 'spec', 'podSelector'))), age(o, now)],
};

// ---- cluster, config, storage -------------------------------------------------------------------------

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';

const nodePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    AGE(),
    col('Version', 'string', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('External-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    col('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    col('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
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
      if (k.startsWith(NODE_ROLE_PREFIX) && k.length > NODE_ROLE_PREFIX.length) roles.add(k.slice(NODE_ROLE_PREFIX.length));
      else if (k === 'kubernetes.io/role' && v) roles.add(v);
    }
    const address = (type: string) => str(arr(status.addresses).map(rec).find((a) => a.type === type)?.address) || '<none>';
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

const namespacePrinter: Printer = {
  columns: () => [NAME(), col('Status', 'string', 'The status of the namespace'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', str(path(o, 'status', 'phase')), age(o, now)],
};

const secretPrinter: Printer = {
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

const configMapPrinter: Printer = {
  columns: () => [NAME(), col('Data', 'string', 'Data contains the configuration data.'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length, age(o, now)],
};

const serviceAccountPrinter: Printer = {
  columns: () => [NAME(), col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), AGE()],
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
const storageClassOf = (o: KubeObject) => o.metadata.annotations?.[STORAGE_CLASS_ANNOTATION] ?? str(path(o, 'spec', 'storageClassName'));

const pvPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
    col('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    col('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    col('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    col('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    col('StorageClass', 'string', 'StorageClass of the pv'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    col('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
    AGE(),
    col('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', 1),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const claim = present(spec.claimRef) ? `${str(path(spec, 'claimRef', 'namespace'))}/${str(path(spec, 'claimRef', 'name'))}` : '';
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

const pvcPrinter: Printer = {
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

const isDefaultClass = (o: KubeObject, annotation: string) =>
  o.metadata.annotations?.[annotation] === 'true' || o.metadata.annotations?.[annotation.replace('.kubernetes.io', '.beta.kubernetes.io')] === 'true';

const storageClassPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    col('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.'),
    col('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
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

const leasePrinter: Printer = {
  columns: () => [NAME(), col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), AGE()],
  row: (o, now) => [o.metadata.name ?? '', str(path(o, 'spec', 'holderIdentity')), age(o, now)],
};

const priorityClassPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Value', 'integer', 'value represents the integer value of this priority class.'),
    col('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.'),
    AGE(),
    col('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority.', 1),
  ],
  row: (o, now) => [o.metadata.name ?? '', int(o.value), o.globalDefault === true, age(o, now), str(o.preemptionPolicy)],
};

// ---- rbac, admission, autoscaling, policy -------------------------------------------------------------

const bindingPrinter = (what: string): Printer => ({
  columns: () => [
    NAME(),
    col('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
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
    return [o.metadata.name ?? '', `${str(ref.kind)}/${str(ref.name)}`, age(o, now), users.join(', '), groups.join(', '), sas.join(', ')];
  },
});

const webhookConfigPrinter: Printer = {
  columns: () => [NAME(), col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'), AGE()],
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
  const statuses = present(status.currentCPUUtilizationPercentage) ? [cpu({ current: { averageUtilization: status.currentCPUUtilizationPercentage } })] : [];
  return { specs: [cpu({ target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } })], statuses };
}

/** formatHPAMetrics: `cpu: 40%/80%` style targets, at most two then `+ N more...`. */
function formatHPAMetrics(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const status = statuses[i] ? rec(statuses[i]) : undefined;
    const type = str(spec.type);
    const source = rec(spec[{ External: 'external', Pods: 'pods', Object: 'object', Resource: 'resource', ContainerResource: 'containerResource' }[type] ?? '']);
    const current = status ? rec(path(status, { External: 'external', Pods: 'pods', Object: 'object', Resource: 'resource', ContainerResource: 'containerResource' }[type] ?? '', 'current')) : undefined;
    const target = rec(source.target);
    switch (type) {
      case 'External':
      case 'Object':
        if (present(target.averageValue)) return `${str(current?.averageValue) || '<unknown>'}/${str(target.averageValue)} (avg)`;
        return `${(current && str(current.value)) || '<unknown>'}/${str(target.value)}`;
      case 'Pods':
        return `${(current && str(current.averageValue)) || '<unknown>'}/${str(target.averageValue)}`;
      case 'Resource':
      case 'ContainerResource': {
        const name = str(source.name);
        if (present(target.averageValue)) return `${name}: ${(current && str(current.averageValue)) || '<unknown>'}/${str(target.averageValue)}`;
        const cur = current && present(current.averageUtilization) ? `${int(current.averageUtilization)}%` : '<unknown>';
        const want = present(target.averageUtilization) ? `${int(target.averageUtilization)}%` : '<auto>';
        return `${name}: ${cur}/${want}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

const hpaPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Reference', 'string', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
    col('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count.'),
    col('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
    col('MaxPods', 'string', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
    col('Replicas', 'string', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
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

const pdbPrinter: Printer = {
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

// ---- registry -----------------------------------------------------------------------------------------

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

const defaultPrinter: Printer = { columns: DEFAULT_COLUMNS, row: defaultRow };

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
export function builtinTableRow(group: string, kind: string, obj: KubeObject, now: number | Date = Date.now()): unknown[] {
  const t = typeof now === 'number' ? now : now.getTime();
  return printerFor(group, kind).row({ ...obj, metadata: obj.metadata ?? {} }, t);
}

/** Row conditions kube attaches: finished pods are marked Completed (kubectl uses it for --show-all style filtering). */
export function builtinRowConditions(group: string, kind: string, obj: KubeObject): TableRowCondition[] | undefined {
  if (group !== '' || kind !== 'Pod') return undefined;
  const phase = str(path(obj, 'status', 'phase'));
  if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}
