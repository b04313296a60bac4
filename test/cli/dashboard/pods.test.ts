// Drill-down, pure: which pods a resource's page shows (through owners and workload selectors, never another
// namespace's), why a pod is not running in the cluster's own words, and what a log stream sends next.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { logDelta } from '../../../src/cli/dashboard/logs.ts';
import { descendants, pendingReason, podsOf, podView } from '../../../src/cli/dashboard/pods.ts';

const obj = (kind: string, name: string, extra: Record<string, unknown> = {}, owner?: string, ns = 'q') =>
  ({
    apiVersion: 'v1',
    kind,
    metadata: {
      name,
      namespace: ns,
      uid: `uid-${kind}-${name}-${ns}`,
      ...(owner ? { ownerReferences: [{ apiVersion: 'x', kind: 'X', name: 'o', uid: owner }] } : {}),
      ...((extra.metadata as object) ?? {}),
    },
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
  }) as unknown as KubeObject;

describe('the pods of a resource', () => {
  const md = obj('ModelDeployment', 'm');
  const ws = obj('Workspace', 'm', {}, md.metadata.uid);
  const dep = obj('Deployment', 'm', { spec: { selector: { matchLabels: { app: 'm' } } } }, ws.metadata.uid);
  const other = obj('Deployment', 'other', { spec: { selector: { matchLabels: { app: 'other' } } } });
  const pod = (name: string, labels: Record<string, string>, ns = 'q', extra: Record<string, unknown> = {}) =>
    obj('Pod', name, { metadata: { labels }, ...extra }, undefined, ns);
  const pods = [
    pod('m-1', { app: 'm' }),
    pod('m-2', { app: 'm', extra: 'y' }),
    pod('o-1', { app: 'other' }),
    pod('m-x', { app: 'm' }, 'elsewhere'),
  ];

  it('follows ownership down to the workload and its selector; another namespace is never included', () => {
    assert.deepEqual(
      descendants(md, [md, ws, dep, other]).map((o) => `${o.kind}/${o.metadata.name}`),
      ['ModelDeployment/m', 'Workspace/m', 'Deployment/m'],
    );
    assert.deepEqual(
      podsOf(md, [md, ws, dep, other], pods).map((p) => p.metadata.name),
      ['m-1', 'm-2'],
    );
    assert.deepEqual(
      podsOf(other, [other], pods).map((p) => p.metadata.name),
      ['o-1'],
    );
    assert.deepEqual(podsOf(pods[0]!, [], pods), [], 'a pod page lists no pods');
  });

  it("an autoscaler's pods are its scale target's", () => {
    const va = obj('VariantAutoscaling', 'v', { spec: { scaleTargetRef: { kind: 'Deployment', name: 'm' } } });
    assert.deepEqual(
      podsOf(va, [va, md, ws, dep, other], pods).map((p) => p.metadata.name),
      ['m-1', 'm-2'],
    );
    const lost = obj('VariantAutoscaling', 'w', { spec: { scaleTargetRef: { kind: 'Deployment', name: 'gone' } } });
    assert.deepEqual(podsOf(lost, [lost, dep], pods), []);
  });

  it('a pod owned directly (a Job, a StatefulSet) counts without a selector', () => {
    const job = obj('Job', 'j');
    const owned = obj('Pod', 'j-abc', {}, job.metadata.uid);
    assert.deepEqual(
      podsOf(job, [job], [owned]).map((p) => p.metadata.name),
      ['j-abc'],
    );
  });

  it('why a pod is not running, in the words the cluster used', () => {
    const pending = obj('Pod', 'p', {
      status: {
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes have 2 free GPUs' },
        ],
      },
    });
    assert.equal(pendingReason(pending), 'Unschedulable: 0/6 nodes have 2 free GPUs');
    const crashing = obj('Pod', 'c', {
      spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          { name: 'a', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } } },
          { name: 'b', restartCount: 1, state: { running: {} } },
        ],
      },
    });
    assert.deepEqual(podView(crashing, 'k'), {
      key: 'k',
      namespace: 'q',
      name: 'c',
      phase: 'Running',
      ready: false,
      node: 'n1',
      restarts: 4,
      containers: ['a', 'b'],
      reason: 'CrashLoopBackOff: back-off 40s',
    });
    const ready = obj('Pod', 'r', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
    assert.equal(podView(ready, 'k').reason, undefined, 'a ready pod has no reason');
  });
});

describe('a log stream sends only what is new', () => {
  it('appended lines, a moved tail window, a restart', () => {
    assert.deepEqual(logDelta('', 'a\nb\n'), { text: 'a\nb\n', reset: true });
    assert.deepEqual(logDelta('a\nb\n', 'a\nb\nc\n'), { text: 'c\n', reset: false });
    assert.equal(logDelta('a\nb\n', 'a\nb\n'), undefined);
    // the last-500-lines window moved on: the old end is found inside the new text
    assert.deepEqual(logDelta('1\n2\n3\n', '2\n3\n4\n5\n'), { text: '4\n5\n', reset: false });
    assert.deepEqual(logDelta('old run\n', 'new run\n'), { text: 'new run\n', reset: true });
  });
});

describe('try it', () => {
  const md = (status: Record<string, unknown>, spec: Record<string, unknown> = { model: { id: 'org/m' } }) =>
    ({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'm', namespace: 'q' },
      spec,
      status,
    }) as unknown as KubeObject;

  it("endpoints from status with a curl each; the gateway's model name wins; no gateway, no chat", async () => {
    const { tryPanel } = await import('../../../src/cli/dashboard/try.ts');
    const p = tryPanel(
      md({
        endpoint: { url: 'http://m.q.svc.cluster.local:8000', gatewayUrl: 'http://127.244.255.1/' },
        gateway: { modelName: 'served' },
      }),
    )!;
    assert.equal(p.model, 'served');
    assert.deepEqual(
      p.endpoints.map((e) => [e.via, e.url]),
      [
        ['gateway', 'http://127.244.255.1'],
        ['direct', 'http://m.q.svc.cluster.local:8000'],
      ],
    );
    assert.equal(
      p.endpoints[0]!.curl,
      `curl -sS 'http://127.244.255.1/v1/chat/completions' -H 'content-type: application/json' -d '{"model":"served","messages":[{"role":"user","content":"Hello"}],"max_tokens":64}'`,
    );
    assert.equal(p.canChat, true);
    assert.equal(p.noChat, undefined);
    const direct = tryPanel(md({ endpoint: { url: 'http://m.q.svc:8000' } }))!;
    assert.equal(direct.canChat, false);
    assert.match(direct.noChat ?? '', /not routed through a Gateway/);
    const conflict = tryPanel(
      md({
        endpoint: { url: 'http://m.q.svc:8000' },
        conditions: [
          { type: 'GatewayReady', status: 'False', reason: 'ModelNameConflict', message: 'served by quickstart/other' },
        ],
      }),
    )!;
    assert.equal(
      conflict.noChat,
      'GatewayReady ModelNameConflict: served by quickstart/other',
      "in the cluster's words",
    );
    assert.equal(direct.model, 'org/m');
    // a status URL that is not plain http(s) is not offered (nor would the chat send to it)
    assert.deepEqual(tryPanel(md({ endpoint: { gatewayUrl: "file:///etc/passwd' ; rm -rf /" } }))!.endpoints, []);
  });

  it('a model name with a quote stays one shell word in the curl', async () => {
    const { curlFor } = await import('../../../src/cli/dashboard/try.ts');
    assert.match(curlFor('http://x', "it's"), /"model":"it'\\''s"/);
  });
});

describe('try it on an AIMService', () => {
  const svc = (extra: Record<string, unknown> = {}) =>
    ({
      apiVersion: 'aim.eai.amd.com/v1alpha1',
      kind: 'AIMService',
      metadata: { name: 'qwen-chat', namespace: 'q', uid: 'svc-uid' },
      status: {
        routing: { path: '/q/chatbot/qwen-chat' },
        resolvedModel: { kind: 'AIMModel', name: 'qwen3-8b', namespace: 'q' },
      },
      ...extra,
    }) as unknown as KubeObject;
  const owned = { ownerReferences: [{ uid: 'svc-uid', kind: 'AIMService', name: 'qwen-chat', apiVersion: 'x' }] };
  const route = {
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace: 'q', ...owned },
    spec: { parentRefs: [{ name: 'inference-gateway', namespace: 'gateways' }] },
  } as unknown as KubeObject;
  const gw = (addresses: unknown[]) =>
    ({
      kind: 'Gateway',
      metadata: { name: 'inference-gateway', namespace: 'gateways' },
      status: { addresses },
    }) as unknown as KubeObject;
  const isvc = {
    kind: 'InferenceService',
    metadata: { name: 'qwen-chat', namespace: 'q', ...owned },
    status: { address: { url: 'http://qwen-chat-predictor.q.svc.cluster.local' } },
  } as unknown as KubeObject;
  const model = (kind: string, namespace: string | undefined, canonicalName: string) =>
    ({
      kind,
      metadata: { name: 'qwen3-8b', ...(namespace ? { namespace } : {}) },
      status: { imageMetadata: { model: { canonicalName } } },
    }) as unknown as KubeObject;
  const address = [{ type: 'IPAddress', value: '127.244.255.1' }];

  it("through its route's Gateway (status.routing.path) and its InferenceService, naming the resolved model", async () => {
    const { aimTryPanel } = await import('../../../src/cli/dashboard/try.ts');
    const p = aimTryPanel(svc(), {
      routes: [route],
      gateways: [gw(address)],
      inferenceServices: [isvc],
      // another namespace's model of the same name is not this service's
      models: [model('AIMModel', 'other', 'Wrong/Model'), model('AIMModel', 'q', 'Qwen/Qwen3-8B')],
    })!;
    assert.equal(p.model, 'Qwen/Qwen3-8B');
    assert.deepEqual(
      p.endpoints.map((e) => [e.via, e.url, e.note]),
      [
        ['gateway', 'http://127.244.255.1/q/chatbot/qwen-chat', 'through Gateway gateways/inference-gateway'],
        [
          'direct',
          'http://qwen-chat-predictor.q.svc.cluster.local',
          'InferenceService qwen-chat, from inside the cluster (a pod, or kubectl port-forward)',
        ],
      ],
    );
    assert.equal(
      p.endpoints[0]!.curl,
      `curl -sS 'http://127.244.255.1/q/chatbot/qwen-chat/v1/chat/completions' -H 'content-type: application/json' -d '{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"Hello"}],"max_tokens":64}'`,
    );
    assert.equal(p.canChat, true);
  });

  it("a custom model's AIM_MODEL_ID wins; a cluster model is found by name alone; unknown model: no model field", async () => {
    const { aimTryPanel } = await import('../../../src/cli/dashboard/try.ts');
    const world = { routes: [route], gateways: [gw(address)] };
    const custom = svc({ spec: { env: [{ name: 'AIM_MODEL_ID', value: 'org/custom' }] } });
    assert.equal(
      aimTryPanel(custom, { ...world, models: [model('AIMModel', 'q', 'Qwen/Qwen3-8B')] })!.model,
      'org/custom',
    );
    const cluster = svc({
      status: { routing: { path: '/p' }, resolvedModel: { kind: 'AIMClusterModel', name: 'qwen3-8b' } },
    });
    assert.equal(
      aimTryPanel(cluster, { ...world, models: [model('AIMClusterModel', undefined, 'C/M')] })!.model,
      'C/M',
    );
    const unknown = aimTryPanel(svc(), world)!;
    assert.equal(unknown.model, '');
    assert.doesNotMatch(unknown.endpoints[0]!.curl, /"model"/, 'the image serves its own model');
    assert.equal(unknown.canChat, true);
  });

  it('no Gateway address, no route, or a path that is not one: no Gateway endpoint and no chat', async () => {
    const { aimTryPanel } = await import('../../../src/cli/dashboard/try.ts');
    const none = aimTryPanel(svc(), { routes: [route], gateways: [gw([])] })!;
    assert.deepEqual(none.endpoints, []);
    assert.equal(none.canChat, false);
    assert.equal(none.noChat, 'the Gateway its HTTPRoute is attached to has no address yet');
    const degraded = svc({
      status: {
        conditions: [
          { type: 'RoutingReady', status: 'False', reason: 'PathTemplateInvalid', message: 'label project not found' },
        ],
      },
    });
    assert.equal(
      aimTryPanel(degraded, { routes: [], gateways: [] })!.noChat,
      'RoutingReady PathTemplateInvalid: label project not found',
    );
    assert.match(aimTryPanel(svc({ status: {} }), { routes: [], gateways: [] })!.noChat ?? '', /AIM routing is off/);
    assert.deepEqual(aimTryPanel(svc(), { routes: [], gateways: [gw(address)] })!.endpoints, [], 'no route');
    const odd = svc({ status: { routing: { path: "@evil.example/' ; rm -rf /" } } });
    assert.deepEqual(aimTryPanel(odd, { routes: [route], gateways: [gw(address)] })!.endpoints, []);
    // another AIMService's route and InferenceService are not this one's
    const foreign = { ...route, metadata: { ...route.metadata, ownerReferences: [{ uid: 'other' }] } } as KubeObject;
    assert.deepEqual(aimTryPanel(svc(), { routes: [foreign], gateways: [gw(address)] })!.endpoints, []);
  });
});
