// How `modelplane dev` applies the examples: cluster-scoped objects (the Namespace) first, each done before any
// namespaced one starts; the namespaced ones concurrently, each after its gate (dev holds ModelDeployments until
// the providers are Ready); the refs in file order; the first failure in file order is the one reported,
// naming the object and its file. The client here only records calls: what is tested is the order and
// overlap of the applies, not the API server (test/cli/dev-quickstart.integration.test.ts covers that).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { applyManifests } from '../../src/cli/dev/examples.ts';

function examplesDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-examples-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const cm = (name: string, ns = 'ex') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\n`;

/** a client whose apply takes a few event-loop turns, recording the order and the most applies in flight */
function recordingClient(failing: ReadonlySet<string> = new Set()) {
  const events: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let manager = '';
  const client = {
    withFieldManager(m: string) {
      manager = m;
      return {
        async apply(obj: KubeObject) {
          const name = obj.metadata.name!;
          events.push(`start ${name}`);
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
          inFlight--;
          events.push(`end ${name}`);
          if (failing.has(name)) throw new Error(`${name} is invalid`);
          return obj;
        },
      };
    },
  } as unknown as KubeClient;
  return { client, events, maxInFlight: () => maxInFlight, manager: () => manager };
}

describe('applyManifests (modelplane dev examples)', () => {
  it('applies the Namespace before any namespaced object, the rest concurrently, and returns refs in file order', async () => {
    const dir = examplesDir({
      '00-namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: ex}\n',
      '10-a.yaml': `${cm('a1')}---\n${cm('a2')}`,
      '20-b.yaml': `${cm('b1')}---\n${cm('b2')}---\n${cm('b3')}`,
    });
    try {
      const rec = recordingClient();
      const refs = await applyManifests(rec.client, dir);
      assert.deepEqual(
        refs.map((r) => `${r.kind} ${r.namespace}/${r.name} ${r.file.slice(dir.length + 1)}`),
        [
          'Namespace /ex 00-namespace.yaml',
          'ConfigMap ex/a1 10-a.yaml',
          'ConfigMap ex/a2 10-a.yaml',
          'ConfigMap ex/b1 20-b.yaml',
          'ConfigMap ex/b2 20-b.yaml',
          'ConfigMap ex/b3 20-b.yaml',
        ],
      );
      assert.deepEqual(
        rec.events.slice(0, 2),
        ['start ex', 'end ex'],
        'the Namespace is done before anything else starts',
      );
      assert.equal(rec.events.length, 12, 'each object applied exactly once');
      assert.equal(rec.maxInFlight(), 5, 'the five namespaced objects are applied at once');
      assert.equal(rec.manager(), 'modelplane-dev');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds a gated object until its gate opens while the others are applied, and keeps file order', async () => {
    const dir = examplesDir({
      '00-namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: ex}\n',
      '10-a.yaml': `${cm('gated')}---\n${cm('a2')}`,
      '20-b.yaml': cm('b1'),
    });
    try {
      const rec = recordingClient();
      let open!: () => void;
      const gateOpen = new Promise<void>((r) => (open = r));
      const applying = applyManifests(rec.client, dir, {
        gate: (obj) => (obj.metadata.name === 'gated' ? gateOpen : undefined),
      });
      while (rec.events.filter((e) => e.startsWith('end ')).length < 3) await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        rec.events.filter((e) => e.endsWith(' gated')),
        [],
        'nothing of the gated object before its gate',
      );
      open();
      const refs = await applying;
      assert.deepEqual(
        refs.map((r) => r.name),
        ['ex', 'gated', 'a2', 'b1'],
      );
      assert.deepEqual(rec.events.slice(-2), ['start gated', 'end gated']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports the first failure in file order, naming the object and its file, after every apply has ended', async () => {
    const dir = examplesDir({
      '00-namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: ex}\n',
      '10-a.yaml': `${cm('a1')}---\n${cm('bad-first')}`,
      '20-b.yaml': `${cm('bad-second')}---\n${cm('b2')}`,
    });
    try {
      const rec = recordingClient(new Set(['bad-first', 'bad-second']));
      await assert.rejects(applyManifests(rec.client, dir), (err: Error) => {
        assert.equal(
          err.message,
          `applying ConfigMap ex/bad-first from ${join(dir, '10-a.yaml')}: bad-first is invalid`,
        );
        return true;
      });
      assert.equal(rec.events.filter((e) => e.startsWith('end ')).length, 5, 'no apply is left running');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops at a failed cluster-scoped object before applying anything namespaced', async () => {
    const dir = examplesDir({
      '00-namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: ex}\n',
      '10-a.yaml': cm('a1'),
    });
    try {
      const rec = recordingClient(new Set(['ex']));
      await assert.rejects(
        applyManifests(rec.client, dir),
        /applying Namespace ex from .*00-namespace\.yaml: ex is invalid/,
      );
      assert.deepEqual(rec.events, ['start ex', 'end ex']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
