// The recorded sequence, part 4b: every kubectl write verb racing writers of the same object, none with a
// resourceVersion — label, annotate, edit, client-side and server-side apply, scale, JSON-patched finalizers,
// status patches and status updates — and deletes racing writes, with and without preconditions. Without a
// precondition every write answers 200 and its effect is in the final object; a delete whose resourceVersion
// precondition held before its admission webhook but not after answers 409 (kube's storage checks it on the
// object it deletes).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { raw } from '@modelplane/apiserver/testing';
import { NS } from './sequence-core.ts';
import { GROUP } from './sequence-more.ts';
import { cms, MERGE, RACE_LABEL, race, racers, range, type Write } from './sequence-races.ts';
import { action, http, kubectl, type Observation, type Step, type Target } from './steps.ts';
import { armHold, disarmHold } from './webhook.ts';

const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const deploys = `/apis/apps/v1/namespaces/${NS}/deployments`;
const HOLD_LABEL = { 'fidelity-hold': 'yes' };

/** the editor kubectl edit runs: adds spec.edited under the edited object's `spec:` line */
const editorPath = (t: Target) => join(t.dir, 'editor.sh');
const EDITOR = `#!/bin/sh\nsed -i 's/^spec:$/spec:\\n  edited: true/' "$1"\n`;

/** a mutating webhook (network round trip) on racing Deployment writes, and a DELETE hold on racers */
const webhooks = (t: Target) => [
  {
    path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'fidelity-races-apps' },
      webhooks: [
        {
          name: 'fidelity-races-apps.example.com',
          clientConfig: { url: `${t.webhookUrl}/mutate`, caBundle: Buffer.from(t.webhookCaPem).toString('base64') },
          rules: [
            {
              apiGroups: ['apps'],
              apiVersions: ['v1'],
              operations: ['UPDATE'],
              resources: ['deployments', 'deployments/status'],
            },
          ],
          objectSelector: { matchLabels: RACE_LABEL },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 5,
        },
      ],
    },
  },
  {
    path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'fidelity-holds' },
      webhooks: [
        {
          name: 'fidelity-holds.example.com',
          clientConfig: {
            url: `${t.webhookUrl}/hold/${t.backend}`,
            caBundle: Buffer.from(t.webhookCaPem).toString('base64'),
          },
          rules: [{ apiGroups: [GROUP], apiVersions: ['v1'], operations: ['DELETE'], resources: ['racers'] }],
          objectSelector: { matchLabels: HOLD_LABEL },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 10,
        },
      ],
    },
  },
];

const racer = (name: string, labels: Record<string, string>, finalizers?: string[]) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Racer',
  metadata: { name, labels, ...(finalizers ? { finalizers } : {}) },
  spec: { created: true },
});

const kracer = `${racers}/kracer`;
const kubectlOnRacer = (t: Target) => {
  const name = 'racers.fidelity.example.com/kracer';
  const applied = {
    apiVersion: `${GROUP}/v1`,
    kind: 'Racer',
    metadata: { name: 'kracer', namespace: NS, labels: { csa: 'yes' } },
  };
  return [
    ['label', name, '-n', NS, 'kubectl-label=yes'],
    ['annotate', name, '-n', NS, 'kubectl-annotate=yes'],
    { args: ['apply', '-f', '-'], input: JSON.stringify(applied) },
    { args: ['edit', name, '-n', NS], env: { KUBE_EDITOR: editorPath(t) } },
    [
      'patch',
      name,
      '-n',
      NS,
      '--type',
      'json',
      '-p',
      '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/kubectl"}]',
    ],
    ['patch', name, '-n', NS, '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"kubectl":1}}'],
  ];
};
const kracerWriters = (): Write[][] => [
  range(6).map((i) => ({ path: `${kracer}/status`, type: MERGE, body: { status: { writer: i + 1 } } })),
  range(3).map((i) => ({
    path: kracer,
    type: JSON_PATCH,
    body: [{ op: 'add', path: '/metadata/finalizers/-', value: `example.com/raw-${i}` }],
  })),
  range(3).map((i) => ({ path: kracer, type: MERGE, body: { spec: { [`merge${i}`]: i } } })),
];
const kracerView = (o: any) => ({
  labels: o.metadata?.labels,
  annotations: Object.keys(o.metadata?.annotations ?? {}).sort(),
  finalizers: [...(o.metadata?.finalizers ?? [])].sort(),
  spec: o.spec,
  status: o.status,
  managers: o.metadata?.managedFields?.map((m: any) => `${m.manager}:${m.operation}:${m.subresource ?? ''}`).sort(),
});

const scaled = `${deploys}/kscaled`;
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'kscaled', labels: RACE_LABEL },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'kscaled' } },
    template: { metadata: { labels: { app: 'kscaled' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
};
/** a status update (PUT, no resourceVersion) of the latest object: what an older controller does */
const statusUpdate = (i: number): Write => ({
  path: `${scaled}/status`,
  type: 'application/json',
  method: 'PUT',
  body: async (t: Target) => {
    const o = (await raw(t, 'GET', scaled)).json();
    return {
      ...o,
      metadata: { ...o.metadata, resourceVersion: undefined },
      status: { ...o.status, collisionCount: i },
    };
  },
});
const deploymentWriters = (): Write[][] => [
  range(3).map(statusUpdate),
  range(4).map((i) => ({ path: scaled, type: STRATEGIC, body: { metadata: { labels: { [`smp-${i}`]: 'yes' } } } })),
];
const kubectlOnDeployment: string[][] = [
  ['scale', 'deployment/kscaled', '-n', NS, '--replicas=3'],
  ['label', 'deployment/kscaled', '-n', NS, 'kubectl-label=yes'],
];
const ssaConfigMap = (manager: string, key: string) => ({
  args: ['apply', '--server-side', `--field-manager=${manager}`, '-f', '-'],
  input: JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'racing', namespace: NS },
    data: { [key]: 'yes' },
  }),
});
const configMapWriters = (): Write[][] => [
  range(4).map((i) => ({ path: `${cms}/racing`, type: MERGE, body: { data: { [`merged${i}`]: 'yes' } } })),
];

const migrated = (labels: Record<string, string> | undefined, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'migrated', namespace: NS, ...(labels ? { labels } : {}) },
  data,
});

/**
 * A delete of a racer while its DELETE admission webhook is held and a status write lands meanwhile: the
 * answer's code and reason, and whether the object is still there.
 */
function heldDelete(name: string, precondition: boolean): Step {
  return {
    name,
    area: 'races',
    counted: true,
    async run(t): Promise<Observation> {
      const path = `${racers}/doomed`;
      const rv = (await raw(t, 'GET', path)).json().metadata?.resourceVersion;
      const hold = armHold(t.backend);
      const options = {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        ...(precondition ? { preconditions: { resourceVersion: rv } } : {}),
      };
      const deleting = raw(t, 'DELETE', path, options, { timeoutMs: 20_000 });
      // (a delete answered without admission, e.g. 404, never reaches the webhook)
      const reached = await Promise.race([hold.reached.then(() => true), deleting.then(() => false)]);
      const status = await raw(t, 'PATCH', `${path}/status`, { status: { moved: true } }, { contentType: MERGE });
      hold.release();
      if (!reached) disarmHold(t.backend);
      const deleted = await deleting;
      const after = await raw(t, 'GET', path);
      return {
        status: deleted.status,
        body: {
          reason: deleted.json().reason,
          statusWrite: status.status,
          after: after.status,
          kept: after.json().status,
        },
      };
    },
  };
}

export const kubectlRaceSteps: Step[] = [
  action('write the editor kubectl edit runs', async (t) => {
    mkdirSync(t.dir, { recursive: true });
    writeFileSync(editorPath(t), EDITOR, { mode: 0o755 });
  }),
  action('create the racing Deployment webhook and the DELETE hold', async (t) => {
    for (const w of webhooks(t)) {
      const r = await raw(t, 'POST', w.path, w.body);
      if (r.status !== 201) throw new Error(`${w.path}: ${r.status} ${r.text}`);
    }
  }),
  http('races', 'create the kubectl racer', 'POST', racers, racer('kracer', RACE_LABEL, ['example.com/base']), {
    pick: (b) => b.metadata?.finalizers,
  }),
  race(
    'kubectl label, annotate, apply, edit and JSON and status patches race status, finalizer and merge writers',
    kracerWriters,
    kubectlOnRacer,
    kracer,
    kracerView,
  ),
  http(
    'races',
    'release the kubectl racer',
    'PATCH',
    kracer,
    { metadata: { finalizers: null } },
    {
      contentType: MERGE,
      pick: (b) => b.metadata?.finalizers ?? [],
    },
  ),
  http('races', 'create the Deployment to scale', 'POST', deploys, deployment, { pick: (b) => b.spec?.replicas }),
  race(
    'kubectl scale and label race strategic patches and status updates without resourceVersion',
    deploymentWriters,
    kubectlOnDeployment,
    scaled,
    (o) => ({ labels: o.metadata?.labels, replicas: o.spec?.replicas }),
  ),
  race(
    'two kubectl server-side appliers race merge patches of a ConfigMap',
    configMapWriters,
    [ssaConfigMap('k-ssa-a', 'ssaA'), ssaConfigMap('k-ssa-b', 'ssaB')],
    `${cms}/racing`,
    (o) => ({
      data: Object.keys(o.data ?? {}).sort(),
      managers: o.metadata?.managedFields?.map((m: any) => m.manager).sort(),
    }),
  ),
  // kubectl's client-side to server-side apply migration: what last-applied lists passes to the applier
  kubectl(
    'races',
    'client-side apply of a ConfigMap with a label',
    ['apply', '-f', '-'],
    JSON.stringify(migrated({ csa: 'yes' }, { a: '1' })),
  ),
  kubectl(
    'races',
    'server-side apply of it without the label, by another manager',
    ['apply', '--server-side', '--field-manager=k-ssa-migrate', '-f', '-'],
    JSON.stringify(migrated(undefined, { b: '2' })),
  ),
  http('races', 'the migrated ConfigMap', 'GET', `${cms}/migrated`, undefined, {
    pick: (o) => ({
      labels: o.metadata?.labels,
      annotations: Object.keys(o.metadata?.annotations ?? {}),
      data: o.data,
      managers: o.metadata?.managedFields?.map((m: any) => `${m.manager}:${m.operation}`).sort(),
    }),
  }),
  http('races', 'create the racer to delete', 'POST', racers, racer('doomed', HOLD_LABEL), { pick: (b) => b.kind }),
  heldDelete('a delete whose resourceVersion moved while its webhook ran → Conflict, object kept', true),
  heldDelete('a delete without precondition while a status write lands → deleted', false),
  http('races', 'create a racer its finalizer holds', 'POST', racers, racer('held', RACE_LABEL, ['example.com/hold']), {
    pick: (b) => b.kind,
  }),
  race(
    'a delete without precondition races label patches of an object a finalizer holds',
    () => [
      [
        {
          path: `${racers}/held`,
          type: 'application/json',
          method: 'DELETE',
          body: { kind: 'DeleteOptions', apiVersion: 'v1' },
        },
      ],
      range(4).map((i) => ({
        path: `${racers}/held`,
        type: MERGE,
        body: { metadata: { labels: { [`after-${i}`]: 'yes' } } },
      })),
    ],
    [['annotate', 'racers.fidelity.example.com/held', '-n', NS, 'kubectl-annotate=yes']],
    `${racers}/held`,
    (o) => ({
      labels: o.metadata?.labels,
      annotations: o.metadata?.annotations,
      deleting: !!o.metadata?.deletionTimestamp,
    }),
  ),
  http(
    'races',
    'the finalizer released, the held racer goes',
    'PATCH',
    `${racers}/held`,
    { metadata: { finalizers: null } },
    {
      contentType: MERGE,
      pick: (b) => b.metadata?.finalizers ?? [],
    },
  ),
];
