// Property: update filters never hide a change. Random sequences of writes (seeded) — spec, labels,
// annotations and finalizers by a user, status fields and conditions by three field managers, by server-side apply and by
// merge patch, many within one second — race on a few objects while one controller per manager watches them
// through ignoreOwnStatusWrites(that manager), and one through nonStatusChanged(). Whatever the order, each
// controller's last reconcile must have seen the final object, up to what its filter is allowed to skip
// (its own status fields; for nonStatusChanged, the status). On the embedded or the real backend.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prng } from '@modelplane/apiserver/testing';
import type { KubeClient } from '../src/client/client.ts';
import type { CustomResourceDefinition } from '../src/client/kinds.ts';
import { ignoreOwnStatusWrites, nonStatusChanged, type Predicate } from '../src/controller/predicates.ts';
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
const OPS_PER_OBJECT = 30;
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

/** what a controller must have seen of `obj`: all of it but the parts its filter may skip */
function view(obj: Gizmo, skipped: string | 'status'): Json {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  if (skipped === 'status') return { metadata, spec: obj.spec };
  const { [skipped]: _own, conditions, ...others } = obj.status ?? {};
  const theirs = (conditions ?? []).filter((c: Json) => c.type !== skipped);
  return { metadata, spec: obj.spec, status: { ...others, ...(theirs.length ? { conditions: theirs } : {}) } };
}

/** one random write to `name`, by the user or one of the managers */
async function randomWrite(clients: Map<string, KubeClient>, name: string, random: () => number): Promise<void> {
  const n = Math.floor(random() * 1000);
  const who = Math.floor(random() * (MANAGERS.length + 1));
  if (who === MANAGERS.length) {
    const user = clients.get('user')!;
    const what = Math.floor(random() * 4);
    const patch =
      what === 0
        ? { spec: { size: n } }
        : what === 1
          ? { metadata: { labels: { [`l${n % 3}`]: String(n) } } }
          : what === 2
            ? { metadata: { annotations: { [`a${n % 3}`]: String(n) } } }
            : // a finalizer list of 0, 1 or 2 entries (nothing deletes these objects, so they never hold anything up)
              { metadata: { finalizers: ['filters.modelplane.io/a', 'filters.modelplane.io/b'].slice(0, n % 3) } };
    await user.patch(Gizmos, name, NS, patch, 'merge');
    return;
  }
  const manager = MANAGERS[who]!;
  const client = clients.get(manager)!;
  const status = { [manager]: n, conditions: [{ type: manager, status: n % 2 ? 'True' : 'False' }] };
  if (random() < 0.5) {
    await client.applyStatus(
      { apiVersion: Gizmos.apiVersion, kind: Gizmos.kind, metadata: { name, namespace: NS }, status },
      { force: true },
    );
  } else {
    // a merge patch replaces the whole conditions list: keep the others' entries, as a controller would
    const live = await client.get(Gizmos, name, NS);
    const others = (live.status?.conditions ?? []).filter((c: Json) => c.type !== manager);
    await client.patch(
      Gizmos,
      name,
      NS,
      { status: { ...status, conditions: [...others, ...status.conditions] } },
      'merge',
      {
        subresource: 'status',
      },
    );
  }
}

describe('update filters never hide a change (seeded property)', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let mgr: Manager;
  /** per watcher: the view of each object its last reconcile saw */
  const seen = new Map<string, Map<string, Json>>();

  before(async () => {
    cluster = await startCluster();
    await ensureCrd(cluster.admin, GIZMO_CRD);
    await ensureNamespace(cluster.admin, NS);
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet });
    const watchers: Array<[string, string, Predicate<Gizmo>]> = [
      ...MANAGERS.map((m): [string, string, Predicate<Gizmo>] => [m, m, ignoreOwnStatusWrites(m)]),
      ['spec-only', 'status', nonStatusChanged()],
    ];
    for (const [name, skipped, predicate] of watchers) {
      const views = new Map<string, Json>();
      seen.set(name, views);
      mgr
        .controller(`watch-${name}`)
        .for(Gizmos, { predicates: [predicate] })
        .complete(async (req, ctx) => {
          const obj = await ctx.cache.get(Gizmos, req.name, req.namespace);
          if (obj) views.set(req.name, view(obj, skipped));
        });
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
    // one stream of writes per object, all at once: dozens of writes land within each second
    await Promise.all(
      OBJECTS.map(async (name, i) => {
        const random = prng(SEED + i);
        for (let op = 0; op < OPS_PER_OBJECT; op++) await randomWrite(clients, name, random);
      }),
    );
    const finals = new Map<string, Gizmo>();
    for (const name of OBJECTS) finals.set(name, await cluster.admin.get(Gizmos, name, NS));
    const stale = () => {
      const out: string[] = [];
      for (const [watcher, views] of seen) {
        const skipped = (MANAGERS as readonly string[]).includes(watcher) ? watcher : 'status';
        for (const [name, final] of finals) {
          const want = view(final, skipped);
          if (JSON.stringify(views.get(name)) !== JSON.stringify(want))
            out.push(`${watcher} on ${name}: saw ${JSON.stringify(views.get(name))}, final ${JSON.stringify(want)}`);
        }
      }
      return out;
    };
    await waitFor(() => stale().length === 0, 'every watcher to see every final state', 30_000).catch(() => undefined);
    assert.deepEqual(stale(), []);
  });
});
