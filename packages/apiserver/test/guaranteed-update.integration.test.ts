// Writes without a resourceVersion precondition never answer 409: while a status writer and several
// patchers race on one object (a slow mutating webhook holds every update open, so each write's object
// changes under it), every merge, JSON, strategic-merge and apply patch and every unconditional update is
// computed again on the latest object, as kube-apiserver's GuaranteedUpdate does. A write that carries a
// stale resourceVersion still gets 409.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { partsOf } from '../src/handle.ts';
import { prng, type RawResponse, raw, startTestCluster, type TestCluster } from '../src/testing/index.ts';
import { allow, startWebhookServer, type WebhookServer } from './admission/fixture.ts';

const SEED = 24;
const RACERS = '/apis/example.com/v1/namespaces/default/racers';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

const RACER_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: racers.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: racers, singular: racer, kind: Racer }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;

function deployment(name: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

describe('writes without a precondition retry on the latest object (GuaranteedUpdate)', () => {
  let c: TestCluster;
  let hooks: WebhookServer;
  const random = prng(SEED);
  /** the webhook's delay: long enough that other writes land while an update waits on it */
  const delay = () => new Promise((res) => setTimeout(res, 2 + Math.floor(random() * 15)));

  /** updates whose object has one of these labels wait in the webhook until released */
  const held = new Map<string, () => Promise<void>>();
  function holdWhileLabelled(label: string): { reached: Promise<void>; release(): void } {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((res) => (reached = res));
    const releasedP = new Promise<void>((res) => (release = res));
    // only the first attempt is held: a retry passes straight through
    held.set(label, async () => {
      held.delete(label);
      reached();
      await releasedP;
    });
    return { reached: reachedP, release };
  }

  before(async () => {
    c = await startTestCluster({ backend: 'embedded' });
    hooks = await startWebhookServer({ dnsNames: ['slow.hooks.svc'] });
    partsOf(c.server).core.serviceEndpoints.register('hooks', 'slow', 443, hooks.url);
    hooks.on('/mutate', async (r) => {
      const labels = (r.request.object ?? r.request.oldObject)?.metadata?.labels ?? {};
      const gate = [...held].find(([label]) => labels[label] === 'yes');
      if (gate) await gate[1]();
      else await delay();
      return allow(r);
    });
    await c.k(['apply', '-f', '-'], RACER_CRD);
    await c.k(['wait', '--for=condition=Established', 'crd/racers.example.com', '--timeout=20s']);
    const webhook = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'slow' },
      webhooks: [
        {
          name: 'slow.example.com',
          clientConfig: { service: { namespace: 'hooks', name: 'slow', path: '/mutate' }, caBundle: hooks.caBundle },
          rules: [
            {
              operations: ['CREATE', 'UPDATE', 'DELETE'],
              apiGroups: ['example.com', 'apps'],
              apiVersions: ['v1'],
              resources: ['racers', 'racers/status', 'deployments', 'deployments/status'],
            },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    };
    const made = await raw(c, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', webhook);
    assert.equal(made.status, 201, made.text);
  });
  after(async () => {
    await c?.stop();
    await hooks?.close();
  });

  const patch = (path: string, type: string, body: unknown, query = '') =>
    raw(c, 'PATCH', `${path}${query}`, body, { contentType: type });

  /** a status writer: `count` merge patches of status.<writer> on /status, no resourceVersion */
  async function statusWriter(path: string, writer: string, count: number): Promise<RawResponse[]> {
    const out: RawResponse[] = [];
    for (let i = 1; i <= count; i++) out.push(await patch(`${path}/status`, MERGE, { status: { [writer]: i } }));
    return out;
  }

  function assertAllOk(responses: RawResponse[]): void {
    const failed = responses.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`);
    assert.deepEqual(failed, [], 'no write without a precondition may fail');
  }

  it('merge, JSON and apply patches of a custom resource race two status writers; none is lost', async () => {
    const path = `${RACERS}/racer`;
    const made = await raw(c, 'POST', RACERS, {
      apiVersion: 'example.com/v1',
      kind: 'Racer',
      metadata: { name: 'racer' },
      spec: {},
    });
    assert.equal(made.status, 201, made.text);
    const retriesBefore = hooks.at('/mutate').length;
    const patchers: Promise<RawResponse>[] = [];
    for (let i = 0; i < 6; i++) {
      patchers.push(patch(path, MERGE, { metadata: { labels: { [`merge-${i}`]: 'yes' } } }));
      patchers.push(patch(path, JSON_PATCH, [{ op: 'add', path: `/spec/json${i}`, value: i }]));
      const applied = {
        apiVersion: 'example.com/v1',
        kind: 'Racer',
        metadata: { name: 'racer' },
        spec: { [`apply${i}`]: i },
      };
      patchers.push(patch(path, APPLY, applied, `?fieldManager=applier-${i}`));
    }
    const [statusA, statusB, patched] = await Promise.all([
      statusWriter(path, 'writerA', 8),
      statusWriter(path, 'writerB', 8),
      Promise.all(patchers),
    ]);
    assertAllOk([...statusA, ...statusB, ...patched]);
    // each of the 34 writes went through the webhook at least once; retried ones more than once
    const admissions = hooks.at('/mutate').length - retriesBefore;
    assert.ok(admissions > 34, `the race never made a write retry (${admissions} admissions for 34 writes)`);

    const final = (await raw(c, 'GET', path)).json();
    for (let i = 0; i < 6; i++) {
      assert.equal(final.metadata.labels[`merge-${i}`], 'yes', `merge patch ${i} lost`);
      assert.equal(final.spec[`json${i}`], i, `JSON patch ${i} lost`);
      assert.equal(final.spec[`apply${i}`], i, `apply ${i} lost`);
    }
    assert.deepEqual(final.status, { writerA: 8, writerB: 8 });
    const managers = new Set(final.metadata.managedFields.map((m: { manager: string }) => m.manager));
    for (let i = 0; i < 6; i++) assert.ok(managers.has(`applier-${i}`), `applier-${i} owns nothing`);
  });

  it('strategic merge patches, unconditional updates and kubectl patches of a Deployment race a status writer', async () => {
    const made = await raw(c, 'POST', DEPLOYMENTS, deployment('racer'));
    assert.equal(made.status, 201, made.text);
    const path = `${DEPLOYMENTS}/racer`;
    const patchers: Promise<RawResponse>[] = [];
    for (let i = 0; i < 6; i++)
      patchers.push(patch(path, STRATEGIC, { metadata: { annotations: { [`smp-${i}`]: 'yes' } } }));
    // kubectl patch sends no resourceVersion: its default (strategic) and merge patches
    const kubectl = [
      c.kubectl(['patch', 'deployment', 'racer', '-n', 'default', '-p', '{"metadata":{"labels":{"kubectl-0":"yes"}}}']),
      c.kubectl(['patch', 'deployment/racer', '-n', 'default', '--type', 'merge', '-p', '{"spec":{"replicas":3}}']),
    ];
    const [status, patched, kubectlRuns] = await Promise.all([
      (async () => {
        const out: RawResponse[] = [];
        for (let i = 1; i <= 8; i++)
          out.push(await patch(`${path}/status`, MERGE, { status: { observedGeneration: i, replicas: i } }));
        return out;
      })(),
      Promise.all(patchers),
      Promise.all(kubectl),
    ]);
    assertAllOk([...status, ...patched]);
    assert.deepEqual(
      kubectlRuns.map((k) => [k.code, k.stderr]),
      [
        [0, ''],
        [0, ''],
      ],
    );
    const final = (await raw(c, 'GET', path)).json();
    for (let i = 0; i < 6; i++)
      assert.equal(final.metadata.annotations[`smp-${i}`], 'yes', `strategic patch ${i} lost`);
    assert.equal(final.metadata.labels['kubectl-0'], 'yes');
    assert.equal(final.spec.replicas, 3);
    assert.equal(final.status.observedGeneration, 8);
    assert.equal(final.status.replicas, 8);

    // An update without a resourceVersion replaces the spec but keeps the status the writer set meanwhile.
    const fresh = (await raw(c, 'GET', path)).json();
    const body = { ...fresh, metadata: { ...fresh.metadata, resourceVersion: undefined } };
    body.spec = { ...fresh.spec, replicas: 5 };
    const [put, lastStatus] = await Promise.all([
      raw(c, 'PUT', path, body),
      patch(`${path}/status`, MERGE, { status: { observedGeneration: 9 } }),
    ]);
    assertAllOk([put, lastStatus]);
    const after = (await raw(c, 'GET', path)).json();
    assert.equal(after.spec.replicas, 5);
    assert.equal(after.status.observedGeneration, 9);
  });

  it('a write carrying a stale resourceVersion still gets 409', async () => {
    const path = `${RACERS}/racer`;
    const stale = (await raw(c, 'GET', path)).json().metadata.resourceVersion;
    assert.equal((await patch(`${path}/status`, MERGE, { status: { moved: true } })).status, 200);
    const merge = await patch(path, MERGE, { metadata: { resourceVersion: stale, labels: { late: 'yes' } } });
    assert.equal(merge.status, 409, merge.text);
    assert.equal(merge.json().reason, 'Conflict');
    const applied = {
      apiVersion: 'example.com/v1',
      kind: 'Racer',
      metadata: { name: 'racer', resourceVersion: stale },
      spec: { late: true },
    };
    assert.equal((await patch(path, APPLY, applied, '?fieldManager=late')).status, 409);
    const got = (await raw(c, 'GET', path)).json();
    const put = await raw(c, 'PUT', path, { ...got, metadata: { ...got.metadata, resourceVersion: stale } });
    assert.equal(put.status, 409, put.text);
    const final = (await raw(c, 'GET', path)).json();
    assert.equal(final.metadata.labels.late, undefined);
    assert.equal(final.spec.late, undefined);
  });

  it('a precondition that held when the write began but not when it commits gets 409; without one, the write retries', async () => {
    const path = `${DEPLOYMENTS}/racer`;
    const hold = async (label: string, body: unknown, precondition: boolean) => {
      const current = (await raw(c, 'GET', path)).json().metadata.resourceVersion;
      const released = holdWhileLabelled(label);
      const meta = { labels: { [label]: 'yes' }, ...(precondition ? { resourceVersion: current } : {}) };
      const held = patch(path, MERGE, { metadata: meta, ...(body as object) });
      await released.reached;
      // the status write lands while the patch waits on the webhook
      const status = await patch(`${path}/status`, MERGE, { status: { availableReplicas: 1 } });
      assert.equal(status.status, 200, status.text);
      released.release();
      return held;
    };
    const conditional = await hold('conditional', {}, true);
    assert.equal(conditional.status, 409, conditional.text);
    assert.equal((await raw(c, 'GET', path)).json().metadata.labels.conditional, undefined);
    const unconditional = await hold('unconditional', {}, false);
    assert.equal(unconditional.status, 200, unconditional.text);
    const final = (await raw(c, 'GET', path)).json();
    assert.equal(final.metadata.labels.unconditional, 'yes');
    assert.equal(final.status.availableReplicas, 1);
  });

  it('two applies that both create the same object: one creates, the other is retried as an update', async () => {
    const path = `${RACERS}/born-twice`;
    const applied = (field: string) => ({
      apiVersion: 'example.com/v1',
      kind: 'Racer',
      metadata: { name: 'born-twice' },
      spec: { [field]: true },
    });
    // both see no object; the webhook holds each create, so the second commits after the first
    const [a, b] = await Promise.all([
      patch(path, APPLY, applied('fromA'), '?fieldManager=creator-a'),
      patch(path, APPLY, applied('fromB'), '?fieldManager=creator-b'),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 201], `${a.text}\n${b.text}`);
    const final = (await raw(c, 'GET', path)).json();
    assert.deepEqual(final.spec, { fromA: true, fromB: true });
    assert.deepEqual(final.metadata.managedFields.map((m: { manager: string }) => m.manager).sort(), [
      'creator-a',
      'creator-b',
    ]);
  });

  it('a delete whose resourceVersion precondition held before admission but not after gets 409; without one it deletes', async () => {
    const path = `${RACERS}/doomed`;
    const create = async () => {
      const made = await raw(c, 'POST', RACERS, {
        apiVersion: 'example.com/v1',
        kind: 'Racer',
        metadata: { name: 'doomed', labels: { 'hold-delete': 'yes' } },
        spec: {},
      });
      assert.equal(made.status, 201, made.text);
      return made.json().metadata.resourceVersion as string;
    };
    const heldDelete = async (preconditions: Record<string, string>) => {
      const released = holdWhileLabelled('hold-delete');
      const deleting = raw(c, 'DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions });
      await released.reached;
      // a status write lands while the delete waits on the webhook
      const status = await patch(`${path}/status`, MERGE, { status: { moved: true } });
      assert.equal(status.status, 200, status.text);
      released.release();
      return deleting;
    };
    const rv = await create();
    const conditional = await heldDelete({ resourceVersion: rv });
    assert.equal(conditional.status, 409, conditional.text);
    assert.match(
      conditional.json().message,
      new RegExp(`ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: `),
    );
    const kept = await raw(c, 'GET', path);
    assert.equal(kept.status, 200, 'the object a failed precondition protected is gone');
    assert.deepEqual(kept.json().status, { moved: true });

    const unconditional = await heldDelete({});
    assert.equal(unconditional.status, 200, unconditional.text);
    assert.equal((await raw(c, 'GET', path)).status, 404);
  });
});
