// The recorded sequence, part 4: writers racing on one object. Status writers and patches of every type,
// none carrying a resourceVersion, run at once while a mutating webhook holds each write open; kube-apiserver
// retries each against the latest object, so every write answers 200 and the final object holds them all.
// Writes that carry a stale resourceVersion answer 409.

import { join } from 'node:path';
import { raw, runKubectl } from '@modelplane/apiserver/testing';
import { normaliseJson } from './normalise.ts';
import { NS } from './sequence-core.ts';
import { GROUP } from './sequence-more.ts';
import { answers, http, type Observation, type Step, type Target, wait } from './steps.ts';

export const racers = `/apis/${GROUP}/v1/namespaces/${NS}/racers`;
export const cms = `/api/v1/namespaces/${NS}/configmaps`;
export const MERGE = 'application/merge-patch+json';
export const RACE_LABEL = { 'fidelity-race': 'on' };

const RACER_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `racers.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'racers', singular: 'racer', kind: 'Racer' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** the fidelity webhook's mutation (label mutated=yes) on every write of a racing object: a network round trip */
const raceWebhook = (t: Target) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'fidelity-races' },
  webhooks: [
    {
      name: 'fidelity-races.example.com',
      clientConfig: { url: `${t.webhookUrl}/mutate`, caBundle: Buffer.from(t.webhookCaPem).toString('base64') },
      rules: [
        { apiGroups: [GROUP], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['racers', 'racers/status'] },
        { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] },
      ],
      objectSelector: { matchLabels: RACE_LABEL },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
    },
  ],
});

export interface Write {
  path: string;
  type: string;
  /** a patch unless said otherwise; a function builds the body when the write is sent */
  method?: string;
  body: unknown | ((t: Target) => Promise<unknown>);
}

/** a kubectl command of a race: its arguments, and what it reads on stdin and from its environment */
export type KubectlRun = string[] | { args: string[]; input?: string; env?: Record<string, string> };

/** sequential writes, one after the other (a controller's status writer) */
async function writer(t: Target, writes: Write[]): Promise<number[]> {
  const codes: number[] = [];
  for (const w of writes) {
    const body = typeof w.body === 'function' ? await w.body(t) : w.body;
    codes.push((await raw(t, w.method ?? 'PATCH', w.path, body, { contentType: w.type })).status);
  }
  return codes;
}

function runRacingKubectl(t: Target, run: KubectlRun): Promise<number | string> {
  const { args, input, env } = Array.isArray(run) ? { args: run, input: undefined, env: undefined } : run;
  const common = ['--kubeconfig', t.kubeconfig, '--cache-dir', join(t.dir, 'cache')];
  return runKubectl([...common, ...args], input, 30_000, env).then((r) =>
    r.code === 0 ? 200 : `kubectl ${r.code}: ${r.stderr}`,
  );
}

/**
 * An exchange of writers running at once: each inner list is one writer's sequence, and kubectl patches
 * run beside them. The observation is the count of each status code (kubectl: its exit code) and the final
 * object as `pick` reduces it.
 */
export function race(
  name: string,
  writers: (t: Target) => Write[][],
  kubectlRuns: KubectlRun[] | ((t: Target) => KubectlRun[]),
  finalPath: string,
  pick: (o: any) => unknown,
): Step {
  return {
    name,
    area: 'races',
    counted: true,
    async run(t): Promise<Observation> {
      const runs = typeof kubectlRuns === 'function' ? kubectlRuns(t) : kubectlRuns;
      const kubectl = runs.map((run) => runRacingKubectl(t, run));
      const results = await Promise.all([...writers(t).map((w) => writer(t, w)), ...kubectl]);
      const codes: Record<string, number> = {};
      for (const c of results.flat()) codes[String(c)] = (codes[String(c)] ?? 0) + 1;
      const final = (await raw(t, 'GET', finalPath)).json();
      return { status: 200, body: normaliseJson({ codes, final: pick(final) }, t.url) };
    },
  };
}

export const range = (n: number) => [...Array(n).keys()];

const racerWriters = (): Write[][] => {
  const racer = `${racers}/racer`;
  const status = (key: string) =>
    range(6).map((i) => ({ path: `${racer}/status`, type: MERGE, body: { status: { [key]: i + 1 } } }));
  const patches = range(4).map((i) => [
    { path: racer, type: MERGE, body: { metadata: { labels: { [`merge-${i}`]: 'yes' } } } },
    {
      path: racer,
      type: 'application/json-patch+json',
      body: [{ op: 'add', path: `/spec/json${i}`, value: i }],
    },
    {
      path: `${racer}?fieldManager=applier-${i}`,
      type: 'application/apply-patch+yaml',
      body: { apiVersion: `${GROUP}/v1`, kind: 'Racer', metadata: { name: 'racer' }, spec: { [`apply${i}`]: i } },
    },
  ]);
  // two status writers, and each patcher's three writes in sequence, all at once
  return [status('writerA'), status('writerB'), ...patches];
};

const configMapWriters = (): Write[][] => {
  const cm = `${cms}/racing`;
  const counter = range(6).map((i) => ({ path: cm, type: MERGE, body: { data: { counter: String(i + 1) } } }));
  const strategic = range(4).map((i) => [
    {
      path: cm,
      type: 'application/strategic-merge-patch+json',
      body: { metadata: { annotations: { [`smp-${i}`]: 'yes' } }, data: { [`smp${i}`]: 'yes' } },
    },
  ]);
  return [counter, ...strategic];
};

const racerView = (o: any) => ({
  labels: o.metadata?.labels,
  spec: o.spec,
  status: o.status,
  managers: o.metadata?.managedFields?.map((m: any) => `${m.manager}:${m.operation}:${m.subresource ?? ''}`).sort(),
});

export const raceSteps: Step[] = [
  http('races', 'create the Racer CRD', 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', RACER_CRD, {
    pick: (b) => b.kind,
  }),
  wait('the Racer CRD to be served', answers(racers, 200)),
  http(
    'races',
    'create a webhook on racing writes',
    'POST',
    '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    raceWebhook,
    { pick: (b) => b.kind },
  ),
  http(
    'races',
    'create the racer',
    'POST',
    racers,
    { apiVersion: `${GROUP}/v1`, kind: 'Racer', metadata: { name: 'racer', labels: RACE_LABEL }, spec: {} },
    { save: (b, t) => t.saved.set('racer-rv', b.metadata?.resourceVersion), pick: (b) => b.metadata?.labels },
  ),
  http(
    'races',
    'create the racing ConfigMap',
    'POST',
    cms,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'racing', labels: RACE_LABEL }, data: {} },
    { pick: (b) => b.metadata?.labels },
  ),
  wait('the race webhook to be called', async (t) => {
    const r = await raw(t, 'PATCH', `${racers}/racer?dryRun=All`, { spec: { probe: 1 } }, { contentType: MERGE });
    return r.status === 200 && r.json().metadata?.labels?.mutated === 'yes';
  }),
  race(
    'two status writers race merge, JSON and apply patches: every write lands',
    racerWriters,
    [['patch', 'racers.fidelity.example.com/racer', '-n', NS, '--type', 'merge', '-p', '{"spec":{"kubectl":1}}']],
    `${racers}/racer`,
    racerView,
  ),
  race(
    'strategic merge and kubectl patches race a merge-patch writer: every write lands',
    configMapWriters,
    [
      ['patch', 'configmap/racing', '-n', NS, '-p', '{"data":{"kubectl":"strategic"}}'],
      ['label', 'configmap/racing', '-n', NS, 'kubectl-label=yes'],
    ],
    `${cms}/racing`,
    (o) => ({ labels: o.metadata?.labels, annotations: o.metadata?.annotations, data: o.data }),
  ),
  http(
    'races',
    'a merge patch with a stale resourceVersion → Conflict',
    'PATCH',
    `${racers}/racer`,
    (t: Target) => ({ metadata: { resourceVersion: t.saved.get('racer-rv'), labels: { stale: 'yes' } } }),
    { contentType: MERGE },
  ),
  http(
    'races',
    'a status patch with a stale resourceVersion → Conflict',
    'PATCH',
    `${racers}/racer/status`,
    (t: Target) => ({ metadata: { resourceVersion: t.saved.get('racer-rv') }, status: { stale: true } }),
    { contentType: MERGE },
  ),
  http(
    'races',
    'an apply with a stale resourceVersion → Conflict',
    'PATCH',
    `${racers}/racer?fieldManager=stale`,
    (t: Target) => ({
      apiVersion: `${GROUP}/v1`,
      kind: 'Racer',
      metadata: { name: 'racer', resourceVersion: t.saved.get('racer-rv') },
      spec: { stale: true },
    }),
    { contentType: 'application/apply-patch+yaml' },
  ),
  http('races', 'the stale writes changed nothing', 'GET', `${racers}/racer`, undefined, { pick: racerView }),
];
