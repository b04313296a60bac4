// Every provider serves on `modelplane dev`, through the Gateway and directly (docs/kubeairunway.md,
// "Gateway on the dev cluster"): one ModelDeployment per provider (KAITO, Dynamo, KubeRay, llm-d, AIM), each
// answers one OpenAI chat request sent to the Gateway with its model name, and one sent straight to a ready
// pod behind its Service (the Ready pods its selector picks, at status.endpoint.port's target: the simulated
// pods' loopback IPs are no Endpoints addresses, as on kube-apiserver; docs/apiserver.md). The
// Gateway's answer must come from one of those pods (x-gateway-destination-endpoint), not from another
// deployment's. AIM's KServe predictor pods run the inference simulator like every other serving pod.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { providersNotReady, waitForProviders } from '../../src/cli/dev/providers-ready.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'quickstart';
const example = (file: string) => readFileSync(`examples/quickstart/${file}`, 'utf8');
const AIM_MD = JSON.stringify({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'qwen-aim', namespace: NS },
  spec: {
    model: { id: 'Qwen/Qwen3-0.6B' },
    engine: { type: 'vllm' },
    resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
  },
});

const DEPLOYMENTS: ReadonlyArray<{ name: string; provider: string; model: string }> = [
  { name: 'gemma-cpu', provider: 'kaito', model: 'google/gemma-3-1b-it-qat-q4_0-gguf' },
  { name: 'llama-1gpu', provider: 'dynamo', model: 'meta-llama/Llama-3.1-8B-Instruct' },
  { name: 'qwen-2gpu', provider: 'kuberay', model: 'Qwen/Qwen3-32B' },
  { name: 'qwen-llmd', provider: 'llmd', model: 'Qwen/Qwen2.5-0.5B-Instruct' },
  { name: 'qwen-aim', provider: 'aim', model: 'Qwen/Qwen3-0.6B' },
];

interface Md {
  status?: {
    provider?: { name?: string };
    endpoint?: { service?: string; port?: number; gatewayUrl?: string };
    conditions?: Array<{ type: string; status: string; reason?: string }>;
  };
}
interface PodList {
  items: Array<{
    metadata: { deletionTimestamp?: string };
    spec: { containers: Array<{ ports?: Array<{ name?: string; containerPort: number }> }> };
    status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
  }>;
}
interface Service {
  spec: {
    selector: Record<string, string>;
    ports: Array<{ port: number; name?: string; targetPort?: number | string }>;
  };
}

describe('every provider answers a chat request on modelplane dev', { timeout: 300_000 }, () => {
  let cluster: DevTestCluster;
  const get = async <T>(args: string[]) => JSON.parse(await cluster.k([...args, '-o', 'json'])) as T;
  const chat = (base: string, model: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }),
    });

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), controllers: true });
    // as `modelplane dev` does: selection is sticky, so the deployments go in once every provider is Ready
    const log = new Logger({ level: 'error' });
    await waitForProviders(cluster.admin, [...new Set(DEPLOYMENTS.map((d) => d.provider))], log, 120_000);
    assert.deepEqual(
      await providersNotReady(
        cluster.admin,
        DEPLOYMENTS.map((d) => d.provider),
      ),
      [],
    );
    for (const f of [
      '00-namespace.yaml',
      '30-aim-runtime-config.yaml',
      '40-modeldeployment-cpu.yaml',
      '41-modeldeployment-1gpu.yaml',
      '42-modeldeployment-2gpu.yaml',
      '43-modeldeployment-llmd.yaml',
    ])
      await cluster.k(['apply', '-f', '-'], example(f));
    await cluster.k(['apply', '-f', '-'], AIM_MD);
  });
  after(async () => cluster?.stop());

  for (const d of DEPLOYMENTS) {
    it(`${d.provider}: ${d.name} answers through the Gateway and through its Service's pod`, async () => {
      const m = await waitFor(
        `${d.name} routed`,
        async () => {
          const m = await get<Md>(['get', 'md', d.name, '-n', NS]);
          const gw = m.status?.conditions?.find((c) => c.type === 'GatewayReady');
          return gw?.status === 'True' && m.status?.endpoint?.gatewayUrl ? m : undefined;
        },
        { timeoutMs: 120_000, detail: () => cluster.k(['get', 'md', d.name, '-n', NS, '-o', 'yaml']) },
      );
      assert.equal(m.status?.provider?.name, d.provider);
      const viaGateway = await waitFor(`a 200 from ${d.model} through the Gateway`, async () => {
        const res = await chat(m.status!.endpoint!.gatewayUrl!, d.model);
        return res.status === 200 ? res : undefined;
      });
      assert.equal(((await viaGateway.json()) as { model: string }).model, d.model);
      // the pods behind status.endpoint: the Service's ready addresses at the port status.endpoint names
      const service = m.status!.endpoint!.service!;
      const svc = await get<Service>(['get', 'service', service, '-n', NS]);
      const svcPort = svc.spec.ports.find((p) => p.port === m.status!.endpoint!.port) ?? svc.spec.ports[0]!;
      const selector = Object.entries(svc.spec.selector).map(([k, v]) => `${k}=${v}`);
      const ready = (await get<PodList>(['get', 'pods', '-n', NS, '-l', selector.join(',')])).items.filter(
        (p) =>
          !p.metadata.deletionTimestamp &&
          p.status?.podIP &&
          p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      const target = svcPort.targetPort ?? svcPort.port;
      const port =
        typeof target === 'number'
          ? target
          : ready[0]?.spec.containers.flatMap((c) => c.ports ?? []).find((p) => p.name === target)?.containerPort;
      const pods = ready.map((p) => p.status!.podIP!);
      assert.ok(pods.length > 0 && port, `no Ready pod behind Service ${service}: ${JSON.stringify(svc)}`);
      const servedBy = viaGateway.headers.get('x-gateway-destination-endpoint') ?? '';
      assert.ok(
        pods.includes(servedBy.split(':')[0]!),
        `the Gateway's answer came from ${servedBy}, not from a pod of Service ${service} (${pods.join(', ')})`,
      );
      const direct = await chat(`http://${pods[0]}:${port}`, d.model);
      assert.equal(direct.status, 200, await direct.clone().text());
      assert.equal(((await direct.json()) as { model: string }).model, d.model);
    });
  }
});
