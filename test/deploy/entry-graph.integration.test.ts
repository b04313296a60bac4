// The production entry loads only production code, proven from the real module graph: each command runs
// through bin/modelplane.js (the image's entrypoint) under a loader hook (loader/forbid-modules.mjs) that fails
// the import of any module under the API server's or the simulators' folders and logs every module resolved.
// run, provider, crds, rbac and render run their real work or their --help; the dev-only commands (dev,
// load, status, dashboard) must answer --help without loading what they run. A control shows the hook does
// catch a dev-only module the real CLI loads lazily.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

/** the folders no production command may load a module from */
const FORBIDDEN = ['packages/apiserver', 'packages/sim'].map((d) => resolve(d));
const HOOK = resolve('test/deploy/loader/forbid-modules.mjs');
const logDir = mkdtempSync(join(tmpdir(), 'modelplane-entry-graph-'));
after(() => rmSync(logDir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** every file the process resolved, as absolute paths */
  modules: string[];
}

let runs = 0;
/** `modelplane ARGS` through the image's entrypoint, under the hook */
function modelplane(args: string[]): Promise<Run> {
  const log = join(logDir, `modules-${++runs}.txt`);
  const env = {
    ...process.env,
    MODELPLANE_FORBID_MODULES: JSON.stringify(FORBIDDEN),
    MODELPLANE_MODULE_LOG: log,
    MODELPLANE_LOG_LEVEL: 'silent',
  };
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', HOOK, resolve('bin/modelplane.js'), ...args],
      { env, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        let modules: string[] = [];
        try {
          modules = readFileSync(log, 'utf8').split('\n').filter(Boolean);
        } catch {}
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ code, stdout, stderr, modules: [...new Set(modules)] });
      },
    );
  });
}

const under = (modules: string[], dir: string) => modules.filter((m) => m.startsWith(`${resolve(dir)}/`));

/** it ran, loaded the CLI through the hook, and loaded nothing forbidden */
function assertProductionOnly(r: Run, what: string): void {
  assert.equal(r.code, 0, `${what} exited ${r.code}:\n${r.stderr}`);
  assert.ok(
    r.modules.includes(resolve('src/cli/main.ts')),
    `${what}: the hook logged no src/cli/main.ts, so it did not watch the CLI load (${r.modules.length} modules logged)`,
  );
  const loaded = FORBIDDEN.flatMap((d) => under(r.modules, d));
  assert.deepEqual(loaded, [], `${what} loaded modules of the API server or the simulators`);
}

describe('the production entry (bin/modelplane.js) loads only production code', () => {
  it('run --help: the operator, no API server or simulator module', async () => {
    const r = await modelplane(['run', '--help']);
    assertProductionOnly(r, 'modelplane run --help');
    assert.match(r.stdout, /--controllers <list>/);
    // the operator really is in the graph: the controllers, the runtime and apimachinery
    assert.ok(under(r.modules, 'src/controllers').length > 50, 'the controllers are loaded');
    assert.ok(under(r.modules, 'packages/apimachinery').length > 0, '@modelplane/apimachinery is loaded');
  });

  it('provider kaito --help', async () => {
    const r = await modelplane(['provider', 'kaito', '--help']);
    assertProductionOnly(r, 'modelplane provider kaito --help');
    assert.match(r.stdout, /kaito\s+KAITO: builds Workspace/);
  });

  it('crds and rbac print their YAML; render renders the quickstart examples', async () => {
    const [crds, rbac, render] = await Promise.all([
      modelplane(['crds']),
      modelplane(['rbac', '--controllers', 'kubeairunway-core']),
      modelplane(['render', '-f', 'examples/quickstart']),
    ]);
    assertProductionOnly(crds, 'modelplane crds');
    assert.match(crds.stdout, /^---\napiVersion: apiextensions\.k8s\.io\/v1\nkind: CustomResourceDefinition\n/);
    assertProductionOnly(rbac, 'modelplane rbac');
    assert.match(rbac.stdout, /kind: ClusterRole\nmetadata:\n {2}name: modelplane-kubeairunway-core\n/);
    assertProductionOnly(render, 'modelplane render');
    assert.match(render.stdout, /# rendered from /);
  });

  it('the dev-only commands answer --help without loading what they run, or any controller', async () => {
    const lazy: Array<[string, string, RegExp]> = [
      ['dev', 'src/cli/dev/command.ts', /--cluster <backend>/],
      ['load', 'src/cli/load/command.ts', /--concurrency <n>/],
      ['status', 'src/cli/status/command.ts', /--watch/],
      ['dashboard', 'src/cli/dashboard/command.ts', /--read-only/],
    ];
    const results = await Promise.all(lazy.map(([command]) => modelplane([command, '--help'])));
    lazy.forEach(([command, runs, help], i) => {
      const r = results[i]!;
      assertProductionOnly(r, `modelplane ${command} --help`);
      assert.match(r.stdout, help);
      assert.ok(!r.modules.includes(resolve(runs)), `${command} --help loaded ${runs}, which only running it needs`);
      assert.deepEqual(under(r.modules, 'src/controllers'), [], `${command} --help loaded controllers`);
    });
  });

  it('modelplane --help lists every command without loading any command module', async () => {
    const r = await modelplane(['--help']);
    assertProductionOnly(r, 'modelplane --help');
    for (const command of ['dev', 'run', 'provider', 'crds', 'rbac', 'render', 'status', 'dashboard', 'chart', 'load'])
      assert.match(r.stdout, new RegExp(`^  ${command} `, 'm'), `modelplane --help lists ${command}`);
    // main.ts, the one-line summaries and the startup-error formatter (src/cli/errors.ts) are what every command shares
    const commandModules = under(r.modules, 'src/cli').filter((m) => !/\/(main|summaries|errors)\.ts$/.test(m));
    assert.deepEqual(commandModules, [], 'modelplane --help loaded command modules');
  });

  it('control: the hook fails a dev-only command that loads the simulators', async () => {
    // `load` runs the inference simulator's load generator: its module is imported lazily, and refused here
    const r = await modelplane(['load', '--url', 'http://127.0.0.1:9', '--model', 'm', '--duration', '0.1']);
    assert.notEqual(r.code, 0, 'modelplane load ran although it loads a simulator module');
    assert.match(r.stderr, /forbidden module .*\/(src|packages)\/sim\//);
  });
});
