// Printers for workload controllers and their templates: apps/v1, batch/v1, PodTemplate, ReplicationController.

import { humanDuration } from '@modelplane/apimachinery';
import { formatLabelSelector, formatLabels } from '../../selectors/labels.ts';
import { AGE, col, NAME, type Printer, SELECTOR, WIDE_TEMPLATE } from './columns.ts';
import {
  age,
  arr,
  conditionStatus,
  containerCells,
  int,
  isSet,
  path,
  present,
  rec,
  selectorString,
  since,
  str,
  strMap,
  templateSpec,
} from './format.ts';

export const deploymentPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Ready', 'string', 'Number of the pod with ready state'),
    col(
      'Up-to-date',
      'string',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    col(
      'Available',
      'string',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    AGE(),
    ...WIDE_TEMPLATE(),
    SELECTOR(
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    ),
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

/**
 * ReplicaSets and ReplicationControllers print alike; only their selectors differ (a LabelSelector, a plain
 * label map).
 */
const replicaSetLikePrinter = (kindDoc: string, selectorCell: (selector: unknown) => string): Printer => ({
  columns: () => [
    NAME(),
    col('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    col('Ready', 'integer', `The number of ready replicas for this ${kindDoc}.`),
    AGE(),
    ...WIDE_TEMPLATE(),
    SELECTOR('Selector is a label query over pods that should match the replica count.'),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    return [
      o.metadata.name ?? '',
      int(spec.replicas),
      int(status.replicas),
      int(status.readyReplicas),
      age(o, now),
      ...containerCells(templateSpec(o)),
      selectorCell(spec.selector),
    ];
  },
});

export const replicaSetPrinter = replicaSetLikePrinter('replica set', (s) => formatLabelSelector(s as never));
export const replicationControllerPrinter = replicaSetLikePrinter('replication controller', (s) =>
  formatLabels(strMap(s)),
);

export const statefulSetPrinter: Printer = {
  columns: () => [NAME(), col('Ready', 'string', 'Number of the pod with ready state'), AGE(), ...WIDE_TEMPLATE()],
  row: (o, now) => [
    o.metadata.name ?? '',
    `${int(path(o, 'status', 'readyReplicas'))}/${int(path(o, 'spec', 'replicas'))}`,
    age(o, now),
    ...containerCells(templateSpec(o)),
  ],
};

export const daemonSetPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    col(
      'Current',
      'integer',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
    ),
    col(
      'Ready',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
    ),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    col(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
    ),
    col(
      'Node Selector',
      'string',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node.",
    ),
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

export const jobPrinter: Printer = {
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
    return [
      o.metadata.name ?? '',
      status,
      completions,
      duration,
      age(o, now),
      ...containerCells(templateSpec(o)),
      formatLabelSelector(spec.selector as never),
    ];
  },
};

const printBoolPtr = (v: unknown) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>');

export const cronJobPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    col(
      'Timezone',
      'string',
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
    ),
    col(
      'Suspend',
      'boolean',
      'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.',
    ),
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

export const podTemplatePrinter: Printer = {
  columns: () => [
    NAME(),
    col('Containers', 'string', 'Names of each container in the template.'),
    col('Images', 'string', 'Images referenced by each container in the template.'),
    col('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  row: (o) => [
    o.metadata.name ?? '',
    ...containerCells(path(o, 'template', 'spec')),
    formatLabels(strMap(path(o, 'template', 'metadata', 'labels'))),
  ],
};

export const controllerRevisionPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Controller', 'string', 'Controller of the object'),
    col('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
    AGE(),
  ],
  row: (o, now) => {
    const ref = arr(o.metadata.ownerReferences)
      .map(rec)
      .find((r) => r.controller === true);
    let controller = '<none>';
    if (ref) {
      const apiVersion = str(ref.apiVersion);
      const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
      const kind = str(ref.kind);
      controller =
        kind || group ? `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${str(ref.name)}` : str(ref.name);
    }
    return [o.metadata.name ?? '', controller, int(o.revision), age(o, now)];
  },
};
