// The simulated endpoints controller's subsets: a pod with a loopback IP (modelplane dev's simulated nodes)
// is never published, since kube-apiserver refuses such an Endpoints address; other pods are, ready or not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointSubsets } from '../src/workloads/endpoints.ts';
import type { Pod, Service } from '../src/workloads/kinds.ts';

const svc: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'llm', namespace: 'ns' },
  spec: { selector: { app: 'llm' }, ports: [{ port: 80, targetPort: 8000 }] },
};
const pod = (name: string, podIP: string, ready = true): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { app: 'llm' } },
  spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'vllm' }] },
  status: {
    phase: 'Running',
    podIP,
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
  },
});

describe('simulated Endpoints subsets', () => {
  it('leave out pods with loopback IPs, ready or not, and keep the others', () => {
    const subsets = endpointSubsets(svc, [
      pod('lo', '127.121.4.5'),
      pod('lo-unready', '127.0.0.9', false),
      pod('lo6', '::1'),
      pod('a', '10.244.1.2'),
      pod('b', '10.244.1.3', false),
    ]);
    const ips = (list?: Array<{ ip: string }>) => (list ?? []).map((a) => a.ip);
    assert.equal(subsets.length, 1);
    assert.deepEqual(ips(subsets[0]!.addresses), ['10.244.1.2']);
    assert.deepEqual(ips(subsets[0]!.notReadyAddresses), ['10.244.1.3']);
  });

  it('are empty when every selected pod has a loopback IP', () => {
    assert.deepEqual(endpointSubsets(svc, [pod('lo', '127.121.4.5'), pod('lo2', '127.121.4.6', false)]), []);
  });
});
