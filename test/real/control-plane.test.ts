// The real control plane launcher: etcd + kube-apiserver + kube-controller-manager come up on loopback
// with their own certificates and RBAC, Kubernetes' own controllers act on objects, ServiceAccount tokens
// and the audit log work, and stop() leaves no process and no directory behind.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type RealControlPlane,
  realOnly,
  realServiceAccountKubeconfig,
  runKubectl,
  startRealControlPlane,
} from '@modelplane/apiserver/testing';
import { waitFor } from '../helpers/wait.ts';

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('real control plane', { ...realOnly(), timeout: 180_000 }, () => {
  let plane: RealControlPlane;
  let dir: string;
  let kubeconfig: string;
  const k = async (args: string[], input?: string, config = kubeconfig) => {
    const r = await runKubectl(['--kubeconfig', config, '--cache-dir', join(dir, 'cache'), ...args], input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  };

  before(async () => {
    plane = await startRealControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'modelplane-real-test-'));
    kubeconfig = join(dir, 'kubeconfig');
    plane.writeKubeconfig(kubeconfig);
  });

  after(async () => {
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the Kubernetes version tools/kube/go.mod pins', async () => {
    const version = JSON.parse(await k(['version', '-o', 'json']));
    assert.match(version.serverVersion.gitVersion, /^v1\.32\.\d+$/);
  });

  it("runs kube-controller-manager's Deployment and ReplicaSet controllers", async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    await k(['apply', '-f', '-'], JSON.stringify(deployment));
    const pods = await waitFor('two pods from the ReplicaSet', async () => {
      const list = JSON.parse(await k(['get', 'pods', '-n', 'default', '-l', 'app=web', '-o', 'json']));
      return list.items.length === 2 ? list.items : undefined;
    });
    assert.equal(pods[0].metadata.ownerReferences[0].kind, 'ReplicaSet');
  });

  it('authorises ServiceAccounts by RBAC and records them in the audit log', async () => {
    await k(['create', 'serviceaccount', 'reader', '-n', 'default']);
    const saConfig = join(dir, 'sa.kubeconfig');
    writeFileSync(saConfig, await realServiceAccountKubeconfig(plane, 'default', 'reader'));
    const denied = await runKubectl([
      '--kubeconfig',
      saConfig,
      '--cache-dir',
      join(dir, 'cache'),
      'get',
      'secrets',
      '-n',
      'default',
    ]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden.*system:serviceaccount:default:reader.*cannot list resource "secrets"/);
    const entry = await waitFor('the refusal in the audit log', () =>
      plane.audit.entries().find((e) => e.user === 'system:serviceaccount:default:reader' && e.resource === 'secrets'),
    );
    assert.equal(entry.code, 403);
    assert.equal(entry.verb, 'list');
  });

  it('stops every process and removes its directory', async () => {
    const pids = plane.processes.map((p) => p.pid);
    assert.equal(pids.length, 3);
    assert.ok(pids.every(alive));
    await plane.stop();
    assert.deepEqual(pids.filter(alive), []);
    assert.equal(existsSync(plane.dir), false);
  });
});
