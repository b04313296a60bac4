// Property: update filters never hide a change. Random sequences of writes (seeded) — spec, labels,
// annotations and finalizers by a user, status fields and conditions by three field managers, by server-side
// apply and by merge patch, some spec and status writes racing each other, many within one second — land on a
// few objects while controllers watch them through the filters the operator's controllers use:
// ignoreOwnStatusWrites(manager) for each manager, nonStatusChanged(), and ignoreOwnStatusWrites combined with
// ignoreFinalizerChange (as the AIM and provider controllers do). Whatever the order, each controller's last
// reconcile must have seen the final object, up to what its filter is allowed to skip (its own status fields
// and finalizer; for nonStatusChanged, the status), with no event after the last write to help it. The run
// also checks that it met the threat: one manager writing twice, and two managers writing, within one second.
// On the embedded or the real backend (npm run test:real lists it).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prng } from '@modelplane/apiserver/testing';
import type { KubeClient } from '../src/client/client.ts';
import type { CustomResourceDefinition } from '../src/client/kinds.ts';
import {
  and,
  ignoreFinalizerChange,
  ignoreOwnStatusWrites,
  nonStatusChanged,
  type Predicate,
} from '../src/controller/predicates.ts';
import type { Controller } from '../src/controller/controller.ts';
import { ensureCrd } from '../src/crd/ensure.ts';
import { Logger } from '../src/log.ts';
import { Manager } from '../src/manager/manager.ts';
import { type KubeObject, kindRef } from '../src/meta/types.ts';
import { ensureNamespace, startCluster, type TestCluster } from './helpers/cluster.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

const SEED = Number(process.env.PREDICATES_SEED ?? 2424);
const NS = 'filters';
const MANAGERS = ['alpha', 'beta', 'gamma'] as const;
const OBJECTS = ['g0', 'g1', 'g2'];
/** rounds of writes, each ending in a check: every round's last writes are a chance for a filter to hide one */
const ROUNDS = 16;
const OPS_PER_ROUND = 4;
const FINALIZERS = ['filters.modelplane.io/a', 'filters.modelplane.io/b'];
const quiet = new Logger({}, 'silent');

type Json = Record<string, any>;
type Gizmo = KubeObject & { spec?: Json; status?: Json };
const Gizmos = kindRef<Gizmo>('filters.modelplane.io/v1', 'Gizmo');

const GIZMO_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.filters.modelplane.io' },
  spec: {
    group: 'filters.modelplane.io',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
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
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: {
                type: 'object',
                properties: {
                  ...Object.fromEntries(MANAGERS.map((m) => [m, { type: 'integer' }])),
                  conditions: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                    items: {
                      type: 'object',
                      required: ['type', 'status'],
                      properties: { type: { type: 'string' }, status: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
} as unknown as CustomResourceDefinition;

/** what a watcher's filter may skip: a manager's own status fields (or the whole status), its own finalizer */
interface Skips {
  status: string | 'all';
  finalizer?: string;
}

/** what a controller must have seen of `obj`: all of it but the parts its filter may skip */
function view(obj: Gizmo, skips: Skips): Json {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  const finalizers = (metadata.finalizers ?? []).filter((f) => f !== skips.finalizer);
  // no finalizers and none but the skipped one look alike (the filter may drop the step between them)
  if (finalizers.length > 0) metadata.finalizers = finalizers;
  else delete metadata.finalizers;
  if (skips.status === 'all') return { metadata, spec: obj.spec };
  const { [skips.status]: _own, conditions, ...others } = obj.status ?? {};
  const theirs = (conditions ?? []).filter((c: Json) => c.type !== skips.status);
  return { metadata, spec: obj.spec, status: { ...others, ...(theirs.length ? { conditions: theirs } : {}) } };
}

/** one write that landed: on which object, by whom, in which second (the resolution of managedFields times) */
interface Landed {
  name: string;
  who: string;
  second: number;
}

async function userWrite(clients: Map<string, KubeClient>, name: string, n: number, what: number): Promise<void> {
  const patch =
    what === 0
      ? { spec: { size: n } }
      : what === 1
        ? { metadata: { labels: { [`l${n % 3}`]: String(n) } } }
        : what === 2
          ? { metadata: { annotations: { [`a${n % 3}`]: String(n) } } }
          : // a finalizer list of 0, 1 or 2 entries (nothing deletes these objects, so they never hold anything up)
            { metadata: { finalizers: FINALIZERS.slice(0, n % 3) } };
  await clients.get('user')!.patch(Gizmos, name, NS, patch, 'merge');
}

async function statusWrite(client: KubeClient, manager: string, name: string, n: number, apply: boolean) {
  const status = { [manager]: n, conditions: [{ type: manager, status: n % 2 ? 'True' : 'False' }] };
  if (apply) {
    await client.applyStatus(
      { apiVersion: Gizmos.apiVersion, kind: Gizmos.kind, metadata: { name, namespace: NS }, status },
      { force: true },
    );
    return;
  }
  // a merge patch replaces the whole conditions list: keep the others' entries, as a controller would
  const live = await client.get(Gizmos, name, NS);
  const others = (live.status?.conditions ?? []).filter((c: Json) => c.type !== manager);
  const body = { status: { ...status, conditions: [...others, ...status.conditions] } };
  await client.patch(Gizmos, name, NS, body, 'merge', { subresource: 'status' });
}

/**
 * One random step on `name`: a write by the user or one of the managers, or (one in eight) a user's write and
 * a manager's status write sent at once, racing each other.
 */
async function randomStep(
  clients: Map<string, KubeClient>,
  name: string,
  random: () => number,
  landed: Landed[],
): Promise<void> {
  const n = Math.floor(random() * 1000);
  const what = Math.floor(random() * 4);
  const manager = MANAGERS[Math.floor(random() * MANAGERS.length)]!;
  const apply = random() < 0.5;
  const step = Math.floor(random() * 8);
  const note = (who: string) => () => landed.push({ name, who, second: Math.floor(Date.now() / 1000) });
  const user = () => userWrite(clients, name, n, what).then(note('user'));
  const status = () => statusWrite(clients.get(manager)!, manager, name, n, apply).then(note(manager));
  if (step === 0) await Promise.all([user(), status()]);
  else if (step < 3) await user();
  else await status();
}

/** did the run meet the threat: some manager writing one object twice, and two managers writing it, in one second? */
function threatsMet(landed: readonly Landed[]): { sameManager: number; twoManagers: number } {
  const bySecond = new Map<string, string[]>();
  for (const l of landed) {
    if (l.who === 'user') continue;
    const k = `${l.name}@${l.second}`;
    bySecond.set(k, [...(bySecond.get(k) ?? []), l.who]);
  }
  let sameManager = 0;
  let twoManagers = 0;
  for (const whos of bySecond.values()) {
    if (new Set(whos).size < whos.length) sameManager++;
    if (new Set(whos).size >= 2) twoManagers++;
  }
  return { sameManager, twoManagers };
}

describe('update filters never hide a change (seeded property)', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let mgr: Manager;
  /** per watcher: the view of each object its last reconcile saw */
  const seen = new Map<string, Map<string, Json>>();
  const controllers: Controller[] = [];
  /** per watcher: how many reconciles each object has had */
  const reconciles = new Map<string, Map<string, number>>();
  /** per watcher: what its filter may skip, and the filter (as the operator's controllers combine them) */
  const watchers: Array<[string, Skips, Predicate<Gizmo>]> = [
    ...MANAGERS.map((m): [string, Skips, Predicate<Gizmo>] => [m, { status: m }, ignoreOwnStatusWrites(m)]),
    ['spec-only', { status: 'all' }, nonStatusChanged()],
    [
      'alpha-with-finalizer',
      { status: 'alpha', finalizer: FINALIZERS[0] },
      and(ignoreOwnStatusWrites('alpha'), ignoreFinalizerChange(FINALIZERS[0]!)),
    ],
  ];

  before(async () => {
    cluster = await startCluster();
    await ensureCrd(cluster.admin, GIZMO_CRD);
    await ensureNamespace(cluster.admin, NS);
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet });
    for (const [name, skipped, predicate] of watchers) {
      const views = new Map<string, Json>();
      seen.set(name, views);
      const counts = new Map<string, number>();
      reconciles.set(name, counts);
      const controller = mgr
        .controller(`watch-${name}`)
        .for(Gizmos, { predicates: [predicate] })
        .complete(async (req, ctx) => {
          counts.set(req.name, (counts.get(req.name) ?? 0) + 1);
          const obj = await ctx.cache.get(Gizmos, req.name, req.namespace);
          if (obj) views.set(req.name, view(obj, skipped));
        });
      controllers.push(controller);
    }
    await mgr.start();
  });
  after(async () => {
    await mgr?.stop();
    await cluster?.close();
  });

  it(`every watcher sees the final state of every object (seed ${SEED})`, async () => {
    const clients = new Map<string, KubeClient>(
      ['user', ...MANAGERS].map((m) => [m, cluster.admin.withFieldManager(m)]),
    );
    for (const name of OBJECTS)
      await cluster.admin.create({
        apiVersion: Gizmos.apiVersion,
        kind: Gizmos.kind,
        metadata: { name, namespace: NS },
        spec: { size: 0 },
      });
    const landed: Landed[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // one stream of writes per object, all at once: dozens of writes land within each second
      await Promise.all(
        OBJECTS.map(async (name, i) => {
          const random = prng(SEED + round * OBJECTS.length + i);
          for (let op = 0; op < OPS_PER_ROUND; op++) await randomStep(clients, name, random, landed);
        }),
      );
      const finals = new Map<string, Gizmo>();
      for (const name of OBJECTS) finals.set(name, await cluster.admin.get(Gizmos, name, NS));
      const stale = () => {
        const out: string[] = [];
        for (const [watcher, skips] of watchers) {
          const views = seen.get(watcher)!;
          for (const [name, final] of finals) {
            const want = view(final, skips);
            if (JSON.stringify(views.get(name)) !== JSON.stringify(want))
              out.push(`${watcher} on ${name}: saw ${JSON.stringify(views.get(name))}, final ${JSON.stringify(want)}`);
          }
        }
        return out;
      };
      await waitFor(() => stale().length === 0, 'every watcher to see every final state', 30_000).catch(
        () => undefined,
      );
      assert.deepEqual(stale(), [], `round ${round + 1} of ${ROUNDS}`);
    }
    const threats = threatsMet(landed);
    assert.ok(
      threats.sameManager > 0 && threats.twoManagers > 0,
      `the run did not race enough: ${JSON.stringify(threats)}`,
    );
  });

  it('a status field of its own that someone else removes reaches the watcher that owns it', async () => {
    const name = 'removed';
    await cluster.admin.create({ apiVersion: Gizmos.apiVersion, kind: Gizmos.kind, metadata: { name, namespace: NS } });
    const alpha = cluster.admin.withFieldManager('alpha');
    await statusWrite(alpha, 'alpha', name, 7, true);
    const count = () => reconciles.get('alpha')!.get(name) ?? 0;
    await waitFor(() => count() > 0, 'the watcher to reconcile the object', 30_000);
    // its own write has reached the watchers' cache (whatever it caused is queued or done): settle there
    await waitFor(
      async () => (await mgr.cache.get(Gizmos, name, NS))?.status?.alpha === 7,
      'the status write to reach the cache',
      30_000,
    );
    await waitFor(() => controllers.every((c) => c.pendingWork === 0), 'the watchers to be idle', 30_000);
    const before = count();
    // a JSON patch remove takes no ownership: only alpha's field set shows the change
    await cluster.admin
      .withFieldManager('by-hand')
      .patch(Gizmos, name, NS, [{ op: 'remove', path: '/status/alpha' }], 'json', { subresource: 'status' });
    await waitFor(() => count() > before, 'alpha to see its field removed', 30_000);
    assert.equal((await cluster.admin.get(Gizmos, name, NS)).status?.alpha, undefined);
  });
});
