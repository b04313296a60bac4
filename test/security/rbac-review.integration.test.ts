// The RBAC review (docs/security.md, "Least privilege, reviewed against the audit log"): every process of the
// operator — `modelplane run` for each controller set and `modelplane provider` for each provider — runs as its
// own ServiceAccount, with leader election, under exactly the rules `modelplane rbac` generates, on the real
// control plane. The quickstart is applied, converges and is deleted again. Then, per process, kube-apiserver's
// audit log is the evidence: no request was refused; every grant was used by some request, unless UNUSED names
// it with the reason it must stay; no Secret or ConfigMap was listed or watched without a selector.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { realOnly } from '@modelplane/apiserver/testing';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { readManifests } from '../../src/cli/dev/examples.ts';
import { providersNotReady } from '../../src/cli/dev/providers-ready.ts';
import { readinessOf } from '../../src/cli/view/readiness.ts';
import { rbacObjects } from '../../src/controllers/rbac.ts';
import type { ControllerSet } from '../../src/controllers/registry.ts';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../src/controllers/sets.ts';
import { WEBHOOK_SERVICE } from '../../src/controllers/webhooks.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { DEPLOY_NAMESPACE, type OperatorProcess, startOperatorProcess } from '../helpers/operator-process.ts';
import { expectedUnused, grantsOf, unselected, unusedGrants, usedVerbs } from '../helpers/rbac-usage.ts';
import { waitFor } from '../helpers/wait.ts';
import { UNUSED } from './rbac-unused.ts';

const OWN_GROUPS = new Set(['aim.eai.amd.com', 'kubeairunway.ai', 'llamastack.io']);
const ownKind = (o: KubeObject) => OWN_GROUPS.has(o.apiVersion.split('/')[0]!);
const describeObject = (o: KubeObject) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`;
const waitingFor = async (left: () => Promise<string[]>) => (await left()).length === 0;

/**
 * Past every controller that writes it: Ready, or — where readiness needs traffic this cluster cannot carry
 * (Services reached by cluster DNS, pods behind a Gateway) — a ModelDeployment Running on its provider and a
 * LlamaStackDistribution with its generated config mounted.
 */
function converged(o: KubeObject): boolean {
  const status = (o as { status?: Record<string, any> }).status;
  if (o.kind === 'ModelDeployment') return status?.phase === 'Running' && !!status?.provider?.name;
  if (o.kind === 'LlamaStackDistribution') return !!status?.configGeneration?.configMapName;
  return readinessOf(o).ready;
}

describe('RBAC review: every process used what it is granted, and nothing was refused', {
  ...realOnly(),
  timeout: 900_000,
}, () => {
  let cluster: DevTestCluster;
  let admin: KubeClient;
  const procs = new Map<string, OperatorProcess>();
  const examples = readManifests('examples/quickstart').map((m) => m.obj);
  const output = () => [...procs].map(([n, p]) => `--- ${n}\n${p.output().slice(-2000)}`).join('\n');

  /** the namespace of a set's ServiceAccount and Lease: `modelplane run` processes all elect on the Lease
   * modelplane-leader, so each runs in a namespace of its own (providers elect on leases of their own) */
  const namespaceOf = (set: ControllerSet) =>
    PROVIDER_SETS.includes(set) ? DEPLOY_NAMESPACE : `modelplane-${set.name}`;

  const setNamed = (name: string) => [...CONTROLLER_SETS, ...PROVIDER_SETS].find((s) => s.name === name)!;

  async function start(set: ControllerSet): Promise<void> {
    const provider = PROVIDER_SETS.includes(set);
    const webhooks = set.name === 'webhooks';
    const proc = await startOperatorProcess(cluster, admin, set, {
      ...(provider ? { command: 'provider' as const } : {}),
      namespace: namespaceOf(set),
      extraArgs: ['--leader-elect', ...(webhooks ? cluster.webhookListenArgs() : [])],
    });
    procs.set(set.name, proc);
    if (!webhooks) return;
    const url = /"msg":"webhook server listening".*?"url":"(https:\/\/[^"]+)"/.exec(proc.output())?.[1];
    assert.ok(url, proc.output());
    await cluster.exposeWebhook(namespaceOf(set), WEBHOOK_SERVICE, url);
  }

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }) });
    admin = cluster.admin;
    const started = await Promise.allSettled([...CONTROLLER_SETS, ...PROVIDER_SETS].map(start));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  });

  after(async () => {
    await Promise.allSettled([...procs.values()].map((p) => p.stop()));
    await cluster?.stop();
  });

  it('the quickstart converges: every provider Ready, then every example of our kinds past its controllers', async () => {
    await waitFor(
      'every provider Ready',
      async () =>
        (await providersNotReady(admin, ['kaito', 'dynamo', 'kuberay', 'aim', 'llmd'])).length === 0 || undefined,
      { timeoutMs: 120_000, intervalMs: 500, detail: output },
    );
    const c = admin.withFieldManager('modelplane-dev');
    for (const o of examples) await c.apply(o);
    const waiting = async () => {
      const out: string[] = [];
      for (const o of examples.filter(ownKind)) {
        const live = await admin.get(kindRef(o.apiVersion, o.kind), o.metadata.name!, o.metadata.namespace);
        if (!converged(live)) out.push(describeObject(o));
      }
      return out;
    };
    await waitFor('every example converged', async () => (await waitingFor(waiting)) || undefined, {
      timeoutMs: 300_000,
      intervalMs: 1_000,
      detail: async () => `waiting for: ${(await waiting()).join(', ')}\n${output()}`,
    });
  });

  it('the examples are deleted, and every finalizer lets go', async () => {
    const ours = examples.filter(ownKind).reverse();
    for (const o of ours) await admin.delete(kindRef(o.apiVersion, o.kind), o.metadata.name!, o.metadata.namespace);
    const left = async () => {
      const out: string[] = [];
      for (const o of ours)
        if (await admin.getOrUndefined(kindRef(o.apiVersion, o.kind), o.metadata.name!, o.metadata.namespace))
          out.push(describeObject(o));
      return out;
    };
    await waitFor('every example gone', async () => (await left()).length === 0 || undefined, {
      timeoutMs: 180_000,
      intervalMs: 1_000,
      detail: async () => `still there: ${(await left()).join(', ')}\n${output()}`,
    });
  });

  it('no request of any process was refused', () => {
    const refused = [...procs.values()].flatMap((p) =>
      cluster
        .auditEntries()
        .filter((e) => e.user === p.user && (e.code === 401 || e.code === 403))
        .map((e) => `${p.user}: ${e.verb} ${e.group}/${e.resource} ${e.namespace}/${e.name} (${e.code})`),
    );
    assert.deepEqual([...new Set(refused)], []);
  });

  it('no process listed or watched Secrets or ConfigMaps without a label or name selector', () => {
    const wide = [...procs.values()].flatMap((p) =>
      cluster
        .auditEntries()
        .filter((e) => e.user === p.user && (e.resource === 'secrets' || e.resource === 'configmaps') && unselected(e))
        .map((e) => `${p.user}: ${e.verb} ${e.resource} ${e.requestURI}`),
    );
    assert.deepEqual([...new Set(wide)], []);
  });

  it('every grant was used, or UNUSED says why it stays; UNUSED names no grant that no longer exists', async (t) => {
    // kube-apiserver records a watch when it ends: the processes stop first, so every watch they held is counted
    await Promise.all([...procs.values()].map((p) => p.stop()));
    const ended = async () => cluster.auditEntries().length;
    let seen = -1;
    await waitFor('the audit log to settle', async () => (seen === (seen = await ended()) ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 1_000,
    });
    const problems: string[] = [];
    for (const [name, proc] of procs) {
      const grants = grantsOf(rbacObjects(setNamed(name), namespaceOf(setNamed(name))) as never);
      const mine = cluster.auditEntries().filter((e) => e.user === proc.user);
      const used = usedVerbs(mine);
      const unusedList = unusedGrants(grants, mine);
      const unused = new Set(unusedList.map((g) => g.key));
      const allowed = UNUSED[name] ?? {};
      const expected = unusedList.filter((g) => expectedUnused(g, used) && !allowed[g.key]);
      t.diagnostic(
        `${name}: ${grants.length} grants, ${grants.length - unused.size} used in ${mine.length} requests; unused: ${expected.length} explained by what it did, ${unused.size - expected.length} listed in UNUSED`,
      );
      for (const g of unusedList)
        if (!allowed[g.key] && !expectedUnused(g, used)) problems.push(`${name}: granted but never used: ${g.key}`);
      for (const key of Object.keys(allowed)) {
        if (!grants.some((g) => g.key === key)) problems.push(`${name}: UNUSED names ${key}, which is not granted`);
        else if (!unused.has(key)) t.diagnostic(`${name}: UNUSED names ${key}, which this run used`);
      }
    }
    assert.equal(problems.length, 0, `\n${problems.join('\n')}`);
  });
});
