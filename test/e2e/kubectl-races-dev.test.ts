// kubectl writes racing the controllers on the dev cluster (docs/apiserver.md, "Writes racing on one object"):
// while the operator reconciles a LlamaStackDistribution, a ModelDeployment, an AIMService and a Deployment
// just applied — writing their status and children — several kubectl writers at once send merge and JSON
// patches, label, annotate, edit, server-side apply under their own managers, add finalizers and (the
// Deployment) scale and strategic-merge patch, none with a resourceVersion. Not one may fail (no 409), and
// every write's effect, the last of each sequence above all, is in the final object. Both backends.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runKubectl } from '@modelplane/apiserver/testing';
import { Logger } from '@modelplane/runtime/log';
import { waitForProviders } from '../../src/cli/dev/providers-ready.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';

const NS = 'quickstart';
const N = 8;
const example = (file: string) => readFileSync(`examples/quickstart/${file}`, 'utf8');
const TARGETS = ['llsd/llama-stack', 'md/gemma-cpu', 'aimsvc/qwen-chat', 'deployment/hello-web'] as const;
/** kubectl edit's editor: adds the annotation EDIT_KEY under the edited object's metadata.annotations */
const EDITOR = `#!/bin/sh\nsed -i "s/^  annotations:$/  annotations:\\n    $EDIT_KEY: \\"yes\\"/" "$1"\n`;

interface Command {
  args: string[];
  input?: string;
  env?: Record<string, string>;
}

interface Run {
  args: string[];
  code: number;
  stderr: string;
}

describe('kubectl writes racing the controllers on modelplane dev', { timeout: 400_000 }, () => {
  let c: DevTestCluster;
  let editor: string;

  const kubectl = async (args: string[], input?: string, env: Record<string, string> = {}): Promise<Run> => {
    const common = ['--kubeconfig', c.kubeconfig, '--cache-dir', join(c.kubeconfig, '..', 'cache'), '-n', NS];
    const r = await runKubectl([...common, ...args], input, 60_000, env);
    return { args, code: r.code, stderr: r.stderr };
  };
  /** one writer: its commands one after the other, as a user's loop would send them */
  const sequence = async (commands: Command[]): Promise<Run[]> => {
    const out: Run[] = [];
    for (const { args, input, env } of commands) out.push(await kubectl(args, input, env));
    return out;
  };
  const times = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));

  before(async () => {
    const log = new Logger({ level: 'error' });
    c = await startDevTestCluster({ log, controllers: true });
    editor = join(c.kubeconfig, '..', 'editor.sh');
    writeFileSync(editor, EDITOR, { mode: 0o755 });
    await waitForProviders(c.admin, ['kaito'], log, 120_000);
    // server-side, as modelplane dev applies them: a client-side apply's last-applied-configuration would
    // make kubectl hand its fields to the first server-side applier below (docs/apiserver.md)
    for (const f of [
      '00-namespace.yaml',
      '10-web-deployment.yaml',
      '30-aim-runtime-config.yaml',
      '31-aim-model.yaml',
      '32-aim-service.yaml',
      '40-modeldeployment-cpu.yaml',
      '50-llamastack-distribution.yaml',
    ])
      await c.k(['apply', '--server-side', '--field-manager=quickstart', '-f', '-'], example(f));
  });
  after(async () => c?.stop());

  for (const target of TARGETS) {
    it(`${target}: ${N} writes from each of several kubectl writers, none lost and none refused`, async () => {
      const tag = target.split('/')[1]!;
      const obj = JSON.parse(await c.k(['get', target, '-n', NS, '-o', 'json']));
      // JSON patches add below labels and finalizers, and the editor below annotations: all exist first (a
      // missing parent is a 422 on both servers)
      await c.k(['label', '-n', NS, '--overwrite', target, 'races=on']);
      await c.k(['annotate', '-n', NS, '--overwrite', target, 'races=on']);
      const finalizers = [...(obj.metadata.finalizers ?? []), 'example.com/races'];
      await c.k(['patch', '-n', NS, target, '--type', 'merge', '-p', JSON.stringify({ metadata: { finalizers } })]);
      const identity = {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        metadata: { name: obj.metadata.name, namespace: NS },
      };
      const deployment = target.startsWith('deployment/');
      const patch = (type: string, body: unknown): Command => ({
        args: ['patch', target, '--type', type, '-p', JSON.stringify(body)],
      });
      const jsonAdd = (path: string, value: string) => patch('json', [{ op: 'add', path, value }]);
      const applied = (i: number) =>
        JSON.stringify({ ...identity, metadata: { ...identity.metadata, labels: { [`ssa-${i}`]: 'yes' } } });
      const writers: Command[][] = [
        times(N, (i) =>
          patch('merge', { metadata: { annotations: { [`merge-${i}`]: 'yes', 'merge-last': String(i) } } }),
        ),
        times(N, (i) => jsonAdd(`/metadata/labels/json-${i}`, 'yes')),
        times(N, (i) => ({
          args: i % 2 ? ['annotate', target, `annotate-${i}=yes`] : ['label', '--overwrite', target, `label-last=${i}`],
        })),
        times(N, (i) => ({
          args: ['apply', '--server-side', `--field-manager=races-${i}`, '-f', '-'],
          input: applied(i),
        })),
        times(3, (i) => ({ args: ['edit', target], env: { KUBE_EDITOR: editor, EDIT_KEY: `edit-${i}` } })),
        times(3, (i) => jsonAdd('/metadata/finalizers/-', `example.com/races-${i}`)),
        ...(deployment
          ? [
              times(N, (i) => ({ args: ['scale', target, `--replicas=${1 + (i % 2)}`] })),
              times(N, (i) => patch('strategic', { metadata: { annotations: { [`strategic-${i}`]: 'yes' } } })),
            ]
          : []),
      ];
      const runs = (await Promise.all(writers.map(sequence))).flat();
      const failed = runs.filter((r) => r.code !== 0).map((r) => `kubectl ${r.args.join(' ')} → ${r.stderr.trim()}`);
      assert.deepEqual(failed, [], `${tag}: writes without a resourceVersion failed`);

      const final = JSON.parse(await c.k(['get', target, '-n', NS, '-o', 'json']));
      const { labels = {}, annotations = {}, finalizers: kept = [] } = final.metadata;
      const missing: string[] = [];
      for (let i = 0; i < N; i++) {
        if (annotations[`merge-${i}`] !== 'yes') missing.push(`merge-${i}`);
        if (labels[`json-${i}`] !== 'yes') missing.push(`json-${i}`);
        if (labels[`ssa-${i}`] !== 'yes') missing.push(`ssa-${i}`);
        if (i % 2 && annotations[`annotate-${i}`] !== 'yes') missing.push(`annotate-${i}`);
        if (deployment && annotations[`strategic-${i}`] !== 'yes') missing.push(`strategic-${i}`);
      }
      for (let i = 0; i < 3; i++) {
        if (annotations[`edit-${i}`] !== 'yes') missing.push(`edit-${i}`);
        if (!kept.includes(`example.com/races-${i}`)) missing.push(`finalizer-${i}`);
      }
      assert.deepEqual(missing, [], `${tag}: writes whose effect is not in the final object`);
      // the last write of each sequence is the value that stays
      assert.equal(annotations['merge-last'], String(N - 1));
      assert.equal(labels['label-last'], String(N - 2));
      if (deployment) assert.equal(final.spec.replicas, 1 + ((N - 1) % 2));

      const released = kept.filter((f: string) => !f.startsWith('example.com/races'));
      await c.k([
        'patch',
        '-n',
        NS,
        target,
        '--type',
        'merge',
        '-p',
        JSON.stringify({ metadata: { finalizers: released.length ? released : null } }),
      ]);
    });
  }
});
