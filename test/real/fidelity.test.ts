// The differential fidelity suite: one recorded sequence of requests (raw HTTP and kubectl) sent to the
// embedded API server and to the real kube-apiserver, each response normalised (uids, timestamps,
// resourceVersions) and compared: status code, reason, message, body. It prints the fidelity line, writes
// every difference to .modelplane/fidelity-report.json, and fails on a difference that docs/apiserver.md's
// known differences do not list (each listed one names the exchange and why it is kept).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '@modelplane/apiserver';
import { type RealControlPlane, realOnly, startRealControlPlane } from '@modelplane/apiserver/testing';
import { type Difference, differences, exchangeId, fidelityLine } from './fidelity/compare.ts';
import { crudSteps, listSteps, patchSteps } from './fidelity/sequence-core.ts';
import { expirySteps } from './fidelity/sequence-expiry.ts';
import { admissionSteps, crdSteps, kubectlSteps, lifecycleSteps, rbacSteps } from './fidelity/sequence-more.ts';
import { raceSteps } from './fidelity/sequence-races.ts';
import { kubectlRaceSteps } from './fidelity/sequence-races-kubectl.ts';
import { resumeSteps } from './fidelity/sequence-resume.ts';
import { validationSteps } from './fidelity/sequence-validation.ts';
import type { Observation, Step, Target } from './fidelity/steps.ts';
import { type FidelityWebhook, startFidelityWebhook } from './fidelity/webhook.ts';

const STEPS: Step[] = [
  ...crudSteps,
  ...validationSteps,
  ...patchSteps,
  ...listSteps,
  ...crdSteps,
  ...admissionSteps,
  ...lifecycleSteps,
  ...rbacSteps,
  ...kubectlSteps,
  ...raceSteps,
  ...kubectlRaceSteps,
  // last: it restarts the real kube-apiserver
  ...expirySteps,
  ...resumeSteps,
];

/** the exchange ids docs/apiserver.md lists under "Differences the fidelity suite shows" */
function listedDifferences(): Set<string> {
  const doc = readFileSync('docs/apiserver.md', 'utf8');
  const section = doc.split('### Differences the fidelity suite shows')[1]?.split(/\n#{2,3} /)[0] ?? '';
  // every `area/exchange` named in the section (a name may wrap across lines)
  const names = [...section.matchAll(/`([a-z-]+\/[^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, ' '));
  return new Set(names.filter((n) => !/\.(ts|md)$/.test(n)));
}

/** compacts etcd at its current revision through its v3 JSON gateway, as kube-apiserver's compactor would */
async function compactEtcd(etcdUrl: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`etcd ${path}: HTTP ${r.status} ${await r.text()}`);
    return (await r.json()) as { header: { revision: string } };
  };
  const { revision } = (await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') })).header;
  await post('/v3/kv/compaction', { revision, physical: true });
}

async function runAll(t: Target): Promise<Map<string, Observation>> {
  const out = new Map<string, Observation>();
  for (const step of STEPS) {
    try {
      const o = await step.run(t);
      if (step.counted) out.set(exchangeId(step), o);
    } catch (err) {
      out.set(exchangeId(step), { status: -1, body: String((err as Error).message).slice(0, 500) });
    }
  }
  return out;
}

describe('differential fidelity: embedded vs real kube-apiserver', { ...realOnly(), timeout: 600_000 }, () => {
  let embedded: ApiServer;
  let real: RealControlPlane;
  let webhook: FidelityWebhook;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'modelplane-fidelity-'));
    [embedded, real] = await Promise.all([startApiServer({ port: 0 }), startRealControlPlane()]);
    webhook = await startFidelityWebhook(embedded);
  });

  after(async () => {
    await Promise.all([embedded?.close(), real?.stop(), webhook?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the recorded exchanges alike, or lists the difference in docs/apiserver.md', async () => {
    const target = (backend: 'embedded' | 'real', s: ApiServer | RealControlPlane): Target => {
      const kubeconfig = join(dir, `${backend}.kubeconfig`);
      s.writeKubeconfig(kubeconfig);
      return {
        backend,
        url: s.url,
        caPem: s.caPem,
        adminToken: s.adminToken,
        kubeconfig,
        dir: join(dir, backend),
        webhookUrl: webhook.url,
        webhookCaPem: webhook.caPem,
        saved: new Map(),
        ...(backend === 'embedded'
          ? {
              compactStorage: async () => embedded.compactStorage(),
              restartWatchCache: async () => embedded.faults.expireWatches(),
            }
          : { compactStorage: () => compactEtcd(real.etcdUrl), restartWatchCache: () => real.restartApiServer() }),
      };
    };
    const [e, r] = await Promise.all([runAll(target('embedded', embedded)), runAll(target('real', real))]);
    const diffs: Difference[] = [];
    for (const step of STEPS.filter((s) => s.counted)) {
      const id = exchangeId(step);
      const what = differences(e.get(id)!, r.get(id)!);
      if (what.length > 0) diffs.push({ id, what, embedded: e.get(id)!, real: r.get(id)! });
    }
    mkdirSync('.modelplane', { recursive: true });
    writeFileSync('.modelplane/fidelity-report.json', `${JSON.stringify(diffs, null, 2)}\n`);
    const listed = listedDifferences();
    const unlisted = diffs.filter((d) => !listed.has(d.id));
    for (const d of diffs) console.log(`${listed.has(d.id) ? 'known' : 'NEW  '} ${d.id}: ${d.what.join(', ')}`);
    console.log(fidelityLine(STEPS, diffs));
    assert.deepEqual(
      unlisted.map((d) => `${d.id}: ${d.what.join(', ')}`),
      [],
      'differences not listed in docs/apiserver.md (details in .modelplane/fidelity-report.json)',
    );
    const stale = [...listed].filter((id) => !diffs.some((d) => d.id === id));
    assert.deepEqual(stale, [], 'docs/apiserver.md lists differences the suite no longer shows: remove them');
  });
});
