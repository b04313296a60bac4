// The simulated Gateway API implementation: the attachment and backend rules (pure, table-driven), and
// on the test cluster GatewayClass/Gateway status and HTTPRoute parent status, including a
// missing backend that appears later and a missing Gateway.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIM_GATEWAY, simGatewayObjects } from '@modelplane/sim/cluster';
import { GatewayClasses, Gateways, HTTPRoutes } from '@modelplane/sim/operators';
import { attach, type Listener, resolveBackends } from '@modelplane/sim/operators/gateway-attach';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

describe('Gateway API attachment rules', () => {
  const gw = (listeners: Listener[]) => ({ namespace: 'gateways', name: 'gw', listeners });
  const http: Listener = { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } };
  const cases: Array<{
    name: string;
    route?: { namespace: string; hostnames?: string[] };
    ref?: Record<string, unknown>;
    listeners: Listener[];
    labels?: Record<string, string>;
    want: string;
  }> = [
    { name: 'from All accepts any namespace', listeners: [http], want: 'Accepted' },
    {
      name: 'from Same (the default) rejects another namespace',
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }],
      want: 'NotAllowedByListeners',
    },
    {
      name: 'from Same accepts the Gateway namespace',
      route: { namespace: 'gateways' },
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }],
      want: 'Accepted',
    },
    {
      name: 'from Selector matches namespace labels',
      listeners: [
        {
          name: 'http',
          port: 80,
          protocol: 'HTTP',
          allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { shared: 'yes' } } } },
        },
      ],
      labels: { shared: 'yes' },
      want: 'Accepted',
    },
    {
      name: 'a sectionName no listener has',
      ref: { sectionName: 'https' },
      listeners: [http],
      want: 'NoMatchingParent',
    },
    { name: 'a port no listener has', ref: { port: 8443 }, listeners: [http], want: 'NoMatchingParent' },
    {
      name: 'a TCP listener does not take HTTPRoutes',
      listeners: [{ name: 'tcp', port: 9000, protocol: 'TCP', allowedRoutes: { namespaces: { from: 'All' } } }],
      want: 'NotAllowedByListeners',
    },
    {
      name: 'hostnames that do not intersect',
      route: { namespace: 'apps', hostnames: ['a.other.io'] },
      listeners: [{ ...http, hostname: '*.example.com' }],
      want: 'NoMatchingListenerHostname',
    },
    {
      name: 'a wildcard listener hostname',
      route: { namespace: 'apps', hostnames: ['llm.example.com'] },
      listeners: [{ ...http, hostname: '*.example.com' }],
      want: 'Accepted',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const a = attach(c.route ?? { namespace: 'apps' }, { name: 'gw', ...(c.ref ?? {}) }, gw(c.listeners), c.labels);
      assert.equal(a.accepted ? 'Accepted' : a.reason, c.want);
    });
  }

  const lookups = {
    serviceExists: (ns: string, n: string) => `${ns}/${n}` === 'apps/svc' || `${ns}/${n}` === 'other/svc',
    granted: (from: string, to: string) => from === 'apps' && to === 'other',
  };
  const backendCases: Array<{ name: string; refs: Array<Record<string, unknown>>; want: string }> = [
    { name: 'an existing Service', refs: [{ name: 'svc' }], want: 'resolved' },
    { name: 'a missing Service', refs: [{ name: 'nope' }], want: 'BackendNotFound' },
    { name: 'a granted cross-namespace Service', refs: [{ name: 'svc', namespace: 'other' }], want: 'resolved' },
    {
      name: 'an ungranted cross-namespace Service',
      refs: [{ name: 'svc', namespace: 'third' }],
      want: 'RefNotPermitted',
    },
    {
      name: 'an InferencePool',
      refs: [{ group: 'inference.networking.k8s.io', kind: 'InferencePool', name: 'pool' }],
      want: 'resolved',
    },
    { name: 'an unsupported kind', refs: [{ group: 'example.com', kind: 'Thing', name: 'x' }], want: 'InvalidKind' },
  ];
  for (const c of backendCases) {
    it(`backendRefs: ${c.name}`, () => {
      const r = resolveBackends('apps', c.refs as Array<{ name: string }>, lookups);
      assert.equal(r.resolved ? 'resolved' : r.reason, c.want);
    });
  }
});

describe('Gateway API simulator on the test cluster', () => {
  let c: OperatorsCluster;
  before(async () => {
    c = await startOperatorsCluster({ only: ['gateway'] });
    for (const o of simGatewayObjects()) await c.client.apply(o);
    await ensureNamespace(c.client, 'apps');
  });
  after(async () => c?.close());

  it('accepts the modelplane-sim GatewayClass and programs its Gateway with an address', async () => {
    const gc = await eventually('GatewayClass Accepted', async () => {
      const o = await getObj(c.client, GatewayClasses, SIM_GATEWAY.className);
      return condition(o, 'Accepted')?.status === 'True' ? o : undefined;
    });
    assert.equal(condition(gc, 'Accepted')?.reason, 'Accepted');
    const gw = await eventually('Gateway Programmed', async () => {
      const o = await getObj(c.client, Gateways, SIM_GATEWAY.name, SIM_GATEWAY.namespace);
      return condition(o, 'Programmed')?.status === 'True' ? o : undefined;
    });
    const st = gw.status as {
      addresses: Array<{ type: string; value: string }>;
      listeners: Array<{ name: string; supportedKinds: Array<{ kind: string }> }>;
    };
    assert.equal(st.addresses[0]?.type, 'IPAddress');
    assert.match(st.addresses[0]?.value ?? '', /^\d+\.\d+\.\d+\.\d+$/);
    assert.deepEqual(
      st.listeners[0]?.supportedKinds.map((k) => k.kind),
      ['HTTPRoute', 'GRPCRoute'],
    );
  });

  it('leaves Gateways of other classes alone', async () => {
    await c.client.apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: 'other' },
      spec: { controllerName: 'example.com/other' },
    });
    await c.client.apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'foreign', namespace: 'apps' },
      spec: { gatewayClassName: 'other', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    });
    await new Promise((r) => setTimeout(r, 300));
    const gw = await c.client.get(Gateways, 'foreign', 'apps');
    assert.equal(condition(gw, 'Programmed')?.reason, 'Pending', 'the CRD default status stays');
    assert.equal(condition(await c.client.get(GatewayClasses, 'other'), 'Accepted')?.status, 'Unknown');
  });

  it('an HTTPRoute on the sim Gateway is Accepted; ResolvedRefs follows its backend Service', async () => {
    await c.client.create({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'llm', namespace: 'apps' },
      spec: {
        parentRefs: [{ name: SIM_GATEWAY.name, namespace: SIM_GATEWAY.namespace }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/apps/llm' } }],
            backendRefs: [{ name: 'llm-predictor', port: 80 }],
          },
        ],
      },
    });
    const parentOf = async () =>
      (
        (await getObj(c.client, HTTPRoutes, 'llm', 'apps'))?.status?.parents as Array<Record<string, any>> | undefined
      )?.[0];
    const unresolved = await eventually('ResolvedRefs=False', async () => {
      const p = await parentOf();
      return p?.conditions?.find((x: { type: string }) => x.type === 'ResolvedRefs')?.status === 'False'
        ? p
        : undefined;
    });
    assert.equal(unresolved.controllerName, 'sim.modelplane.io/gateway-controller');
    assert.equal(unresolved.parentRef.name, SIM_GATEWAY.name);
    const accepted = unresolved.conditions.find((x: { type: string }) => x.type === 'Accepted');
    assert.equal(accepted.status, 'True');
    assert.equal(
      unresolved.conditions.find((x: { type: string }) => x.type === 'ResolvedRefs').reason,
      'BackendNotFound',
    );

    await c.client.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'llm-predictor', namespace: 'apps' },
      spec: { ports: [{ port: 80 }], selector: { app: 'llm' } },
    });
    await eventually('ResolvedRefs=True after the Service appears', async () => {
      const p = await parentOf();
      return p?.conditions?.find((x: { type: string }) => x.type === 'ResolvedRefs')?.status === 'True';
    });
    await eventually('the Gateway counts the attached route', async () => {
      const gw = await c.client.get(Gateways, SIM_GATEWAY.name, SIM_GATEWAY.namespace);
      return ((gw.status?.listeners ?? []) as Array<{ attachedRoutes: number }>)[0]?.attachedRoutes === 1;
    });
  });

  it('an HTTPRoute whose Gateway does not exist is Accepted=False with NoMatchingParent', async () => {
    await c.client.create({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'orphan', namespace: 'apps' },
      spec: {
        parentRefs: [{ name: 'no-such-gateway' }],
        rules: [{ backendRefs: [{ name: 'llm-predictor', port: 80 }] }],
      },
    });
    const p = await eventually('NoMatchingParent', async () => {
      const parents = (await getObj(c.client, HTTPRoutes, 'orphan', 'apps'))?.status?.parents as
        | Array<Record<string, any>>
        | undefined;
      return parents?.[0]?.conditions?.find((x: { type: string }) => x.type === 'Accepted')?.reason ===
        'NoMatchingParent'
        ? parents[0]
        : undefined;
    });
    const accepted = p.conditions.find((x: { type: string }) => x.type === 'Accepted');
    assert.equal(accepted.status, 'False');
    assert.match(accepted.message, /apps\/no-such-gateway not found/);
  });
});
