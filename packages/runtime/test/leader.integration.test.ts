// Two operator processes with leader election against the test cluster: exactly one reconciles,
// and killing it (SIGKILL: no lease release) hands over within 20 s with the production durations.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { Leases } from '../src/manager/leaderelection.ts';
import { ensureNamespace, startCluster, type TestCluster, widget } from './helpers/cluster.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

const NS = 'le-test';

interface Proc {
  id: string;
  child: ChildProcess;
  events: Array<{ event: string; name?: string; t: number }>;
  exited: Promise<number | null>;
}

function launch(kubeconfigPath: string, id: string): Proc {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'packages/runtime/test/fixtures/leader-process.ts', kubeconfigPath, id, NS],
    {
      cwd: process.cwd(),
      env: { ...process.env, MODELPLANE_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const proc: Proc = {
    id,
    child,
    events: [],
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      proc.events.push(JSON.parse(line));
    } catch {
      // not ours
    }
  });
  return proc;
}

const has = (p: Proc, event: string, name?: string) =>
  p.events.some((e) => e.event === event && (name === undefined || e.name === name));
const reconciles = (p: Proc) => p.events.filter((e) => e.event === 'reconciled').length;

describe('leader election across two operator processes', () => {
  let cluster: TestCluster;
  let dir: string;
  const procs: Proc[] = [];

  before(async () => {
    cluster = await startCluster();
    await ensureNamespace(cluster.admin, NS);
    dir = mkdtempSync(join(tmpdir(), 'mp-kube-le-'));
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await cluster?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exactly one process reconciles; SIGKILL of the leader hands over within 20 s', { timeout: 90_000 }, async (t) => {
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, cluster.operatorKubeconfig, { mode: 0o600 });
    const a = launch(kubeconfigPath, 'op-a');
    procs.push(a);
    await waitFor(() => has(a, 'started'), 'first process started', 30_000);
    const b = launch(kubeconfigPath, 'op-b');
    procs.push(b);
    await waitFor(() => has(b, 'started'), 'second process started', 30_000);
    for (let i = 0; i < 3; i++) await cluster.admin.create(widget(`le-${i}`, NS));
    await waitFor(() => reconciles(a) + reconciles(b) >= 3, 'the widgets reconciled', 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    const leader = has(a, 'leading') ? a : b;
    const standby = leader === a ? b : a;
    assert.equal(has(standby, 'leading'), false, 'only one process leads');
    assert.equal(reconciles(standby), 0, 'the standby reconciled nothing');
    assert.equal(reconciles(leader), 3);
    const lease = await cluster.admin.get(Leases, 'runtime-le-test', NS);
    assert.equal(lease.spec?.holderIdentity, leader.id);

    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await leader.exited;
    await cluster.admin.create(widget('after-kill', NS));
    await waitFor(() => has(standby, 'leading'), 'the standby to take over', 25_000);
    const handover = standby.events.find((e) => e.event === 'leading')!.t - killedAt;
    t.diagnostic(`handover after SIGKILL: ${handover} ms`);
    assert.ok(handover < 20_000, `handover took ${handover} ms`);
    await waitFor(() => has(standby, 'reconciled', 'after-kill'), 'the new leader reconciles', 10_000);
    assert.equal(reconciles(standby), 4, 'the new leader reconciles every object once');

    standby.child.kill('SIGTERM');
    assert.equal(await standby.exited, 0, 'graceful exit on SIGTERM');
    const released = await cluster.admin.get(Leases, 'runtime-le-test', NS);
    assert.equal(released.spec?.holderIdentity, '', 'lease released on graceful shutdown');
  });
});
