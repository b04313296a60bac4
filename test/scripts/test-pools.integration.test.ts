// scripts/test-pools.mjs reports several pools of test files as one run: its summary counts and exit code are
// the ones `node --test` gives for the same files, each test is reported once, and the pools run at once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parsePools } from '../../scripts/test-pools.mjs';

const FIXTURES = 'test/scripts/fixtures';
const fixture = (name: string) => join(FIXTURES, `${name}.fixture.mjs`);

/** node as a user starts it: without the NODE_TEST_CONTEXT this test process runs under, which makes node:test report to its parent */
function node(args: string[], extra: Record<string, string> = {}) {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...env, ...extra }, timeout: 120_000 });
  return { code: r.status, out: r.stdout };
}

/** the summary lines (ℹ tests 7, …) but the duration */
function summary(out: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of out.matchAll(/^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
    counts[m[1]!] = Number(m[2]);
  return counts;
}

const reference = (files: string[]) => node(['--test', '--test-reporter=spec', '--test-concurrency=2', ...files]);
const pooled = (args: string[], env?: Record<string, string>) => node(['scripts/test-pools.mjs', ...args], env);

describe('test pools', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'modelplane-pools-'));
    mkdirSync(join(dir, 'two-pools'));
    mkdirSync(join(dir, 'one-pool'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('passing files: the same counts as node --test, exit 0, each test reported once', () => {
    // a copy under another name: node --test runs a file named twice once
    const files = [fixture('passing'), join(dir, 'passing-copy.mjs')];
    copyFileSync(fixture('passing'), files[1]!);
    const ref = reference(files);
    const got = pooled(['--pool=1', files[0]!, '--pool=2', files[1]!]);
    assert.equal(ref.code, 0);
    assert.equal(got.code, 0, got.out);
    assert.deepEqual(summary(got.out), summary(ref.out));
    assert.deepEqual(summary(got.out), { tests: 8, suites: 4, pass: 6, fail: 0, cancelled: 0, skipped: 2, todo: 0 });
    assert.equal(got.out.match(/✔ two \(/g)?.length, 2);
    assert.equal(got.out.match(/output of passing two/g)?.length, 2);
  });

  it('a failing test and a crashing file: the same counts as node --test, exit 1, both among the failures', () => {
    const files = [fixture('passing'), fixture('failing'), fixture('crashing')];
    const ref = reference(files);
    const got = pooled(['--pool=2', files[0]!, files[1]!, '--pool=1', files[2]!]);
    assert.equal(ref.code, 1);
    assert.equal(got.code, 1, got.out);
    assert.deepEqual(summary(got.out), summary(ref.out));
    assert.deepEqual(summary(got.out), { tests: 8, suites: 2, pass: 4, fail: 2, cancelled: 0, skipped: 1, todo: 1 });
    const failures = got.out.slice(got.out.indexOf('failing tests:'));
    assert.match(failures, /✖ fails on purpose/);
    assert.match(failures, /crashing\.fixture\.mjs/);
  });

  it('a file whose only suite is skipped (a real-backend-only file here) passes, as with node --test', () => {
    const files = [fixture('passing'), fixture('skipped-suite')];
    const ref = reference(files);
    const got = pooled(['--pool=1', files[0]!, '--pool=1', files[1]!]);
    assert.equal(ref.code, 0);
    assert.equal(got.code, 0, got.out);
    assert.doesNotMatch(got.out, /counted as failed/);
  });

  it('a failure in one pool fails the run whichever pool it is in', () => {
    for (const args of [
      ['--pool=1', fixture('failing'), '--pool=1', fixture('passing')],
      ['--pool=1', fixture('passing'), '--pool=1', fixture('failing')],
    ]) {
      const got = pooled(args);
      assert.equal(got.code, 1, got.out);
      assert.equal(summary(got.out).fail, 1);
    }
  });

  it('the pools run at once: two files that each wait for the other pass in two pools of one', () => {
    const a = join(dir, 'a-meet.mjs');
    const b = join(dir, 'b-meet.mjs');
    copyFileSync(fixture('rendezvous'), a);
    copyFileSync(fixture('rendezvous'), b);
    const got = pooled(['--pool=1', a, '--pool=1', b], { RENDEZVOUS_DIR: join(dir, 'two-pools') });
    assert.equal(got.code, 0, got.out);
    assert.deepEqual(summary(got.out), { tests: 2, suites: 0, pass: 2, fail: 0, cancelled: 0, skipped: 0, todo: 0 });
  });

  it('a pool runs its concurrency of files at once: the same two pass in one pool of two', () => {
    const a = join(dir, 'a-pair.mjs');
    const b = join(dir, 'b-pair.mjs');
    copyFileSync(fixture('rendezvous'), a);
    copyFileSync(fixture('rendezvous'), b);
    const got = pooled(['--pool=2', a, b], { RENDEZVOUS_DIR: join(dir, 'one-pool') });
    assert.equal(got.code, 0, got.out);
    assert.equal(summary(got.out).pass, 2);
  });

  it('arguments: files before any pool, or a pool of 0, are refused; empty pools are dropped', () => {
    assert.throws(() => parsePools(['x.test.mjs']), /x\.test\.mjs comes before any --pool=N/);
    assert.throws(() => parsePools(['--pool=0', 'x.test.mjs']), /--pool=0 needs a concurrency of 1 or more/);
    assert.deepEqual(parsePools(['--pool=2', '--pool=3', 'a', 'b']), [{ concurrency: 3, files: ['a', 'b'] }]);
    const got = pooled(['x.test.mjs']);
    assert.notEqual(got.code, 0);
  });
});
