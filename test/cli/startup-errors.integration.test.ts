// Startup failures are one line on stderr naming what failed and what to do, and a non-zero exit code; no
// stack trace unless --verbose. Table-driven over the `modelplane` binary as a user runs it: a port in use,
// a privileged port and read-only directories as a non-root user (these run under `nobody` through
// runuser when the test runs as root, since root may bind any port and write anywhere), a missing or
// unreadable kubeconfig, an unknown flag or command, and what `render -f` refuses (an unknown kind, a
// typo'd field, a missing file, invalid YAML).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const BIN = resolve('bin/modelplane.js');
const isRoot = process.getuid?.() === 0;
const hasRunuser = spawnSync('runuser', ['--help']).status === 0;

interface Case {
  name: string;
  args: (dir: string, busyPort: number) => string[];
  /** run as the unprivileged user `nobody` (through runuser when we are root) */
  unprivileged?: boolean;
  code: number;
  line: RegExp;
  /** --verbose: the stack may follow the line */
  verbose?: boolean;
}

const MD = (spec: string, kind = 'ModelDeployment') =>
  `apiVersion: kubeairunway.ai/v1alpha1\nkind: ${kind}\nmetadata: {name: x, namespace: default}\nspec: ${spec}\n`;

const CASES: Case[] = [
  {
    name: 'port in use',
    args: (d, p) => [
      'dev',
      '--only',
      'apiserver',
      '--port',
      String(p),
      '--kubeconfig',
      join(d, 'kc'),
      '--log-dir',
      join(d, 'logs'),
    ],
    code: 2,
    line: /^modelplane dev: port \d+ on 127\.0\.0\.1 is in use — another `modelplane dev`\? use --port 0 \(any free port\) or stop the other process$/,
  },
  {
    name: 'port in use, --verbose: the stack follows',
    args: (d, p) => [
      'dev',
      '--only',
      'apiserver',
      '--verbose',
      '--port',
      String(p),
      '--kubeconfig',
      join(d, 'kc'),
      '--log-dir',
      join(d, 'logs'),
    ],
    code: 2,
    line: /^modelplane dev: port \d+ on 127\.0\.0\.1 is in use/,
    verbose: true,
  },
  {
    name: 'privileged port as a non-root user',
    args: (d) => [
      'dev',
      '--only',
      'apiserver',
      '--port',
      '1',
      '--kubeconfig',
      join(d, 'kc'),
      '--log-dir',
      join(d, 'logs'),
    ],
    unprivileged: true,
    code: 2,
    line: /^modelplane dev: port 1 on 127\.0\.0\.1 needs privileges \(ports below 1024 need root or CAP_NET_BIND_SERVICE\) — use --port with a port above 1023, or 0$/,
  },
  {
    name: 'read-only log directory',
    args: (d) => [
      'dev',
      '--only',
      'apiserver',
      '--port',
      '0',
      '--kubeconfig',
      join(d, 'kc'),
      '--log-dir',
      join(d, 'ro', 'logs'),
    ],
    unprivileged: true,
    code: 2,
    line: /^modelplane dev: cannot write \S+\/ro\/logs \(set by --log-dir\): permission denied/,
  },
  {
    name: 'read-only data directory',
    args: (d) => [
      'dev',
      '--only',
      'apiserver',
      '--port',
      '0',
      '--kubeconfig',
      join(d, 'kc'),
      '--log-dir',
      join(d, 'logs'),
      '--data-dir',
      join(d, 'ro', 'data'),
    ],
    unprivileged: true,
    code: 2,
    line: /^modelplane dev: cannot write \S+\/ro\/data \(set by --data-dir\): permission denied/,
  },
  {
    name: 'missing kubeconfig (run)',
    args: (d) => ['run', '--kubeconfig', join(d, 'missing')],
    code: 2,
    line: /^modelplane run: \S+\/missing \(set by --kubeconfig\): no such file or directory$/,
  },
  {
    name: 'unreadable kubeconfig (run)',
    args: (d) => ['run', '--kubeconfig', join(d, 'secret-kubeconfig')],
    unprivileged: true,
    code: 2,
    line: /^modelplane run: cannot \w+ \S+\/secret-kubeconfig \(set by --kubeconfig\): permission denied/,
  },
  {
    name: 'missing kubeconfig (dashboard)',
    args: (d) => ['dashboard', '--port', '0', '--kubeconfig', join(d, 'missing')],
    code: 2,
    line: /^modelplane dashboard: \S+\/missing \(set by --kubeconfig\): no such file or directory$/,
  },
  {
    name: 'unknown flag',
    args: () => ['dev', '--bogus'],
    code: 1,
    line: /^modelplane dev: unknown option '--bogus' — see modelplane dev --help$/,
  },
  {
    name: 'unknown command',
    args: () => ['deploy'],
    code: 1,
    line: /^modelplane: unknown command 'deploy' — see modelplane --help$/,
  },
  {
    name: 'render: unknown kind',
    args: (d) => ['render', '-f', join(d, 'kind.yaml')],
    code: 1,
    line: /kind\.yaml: ModelDeploymnt default\/x: no matches for kind "ModelDeploymnt" in version "kubeairunway\.ai\/v1alpha1" \(kubeairunway\.ai has InferenceProviderConfig, ModelDeployment\)$/,
  },
  {
    name: "render: a typo'd field",
    args: (d) => ['render', '-f', join(d, 'typo.yaml')],
    code: 1,
    line: /typo\.yaml: ModelDeployment default\/x: unknown field "spec\.engien"$/,
  },
  {
    name: 'render: a missing file',
    args: (d) => ['render', '-f', join(d, 'nope.yaml')],
    code: 2,
    line: /^modelplane render: \S+\/nope\.yaml: no such file or directory$/,
  },
  {
    name: 'render: invalid YAML',
    args: (d) => ['render', '-f', join(d, 'bad.yaml')],
    code: 2,
    line: /^modelplane render: \S+\/bad\.yaml: .*at line 2, column 1$/,
  },
];

function run(args: string[], unprivileged: boolean): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const [cmd, argv] =
    unprivileged && isRoot
      ? ['runuser', ['-u', 'nobody', '--', process.execPath, BIN, ...args]]
      : [process.execPath, [BIN, ...args]];
  return new Promise((done) => {
    const child = spawn(cmd, argv as string[], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MODELPLANE_LOG_LEVEL: 'info' },
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stderr, stdout });
    });
  });
}

describe('startup errors: one line, an exit code, no stack trace', () => {
  let dir: string;
  let busy: Server;
  let busyPort: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'modelplane-startup-'));
    chmodSync(dir, 0o777);
    mkdirSync(join(dir, 'logs'), { mode: 0o777 });
    chmodSync(join(dir, 'logs'), 0o777);
    mkdirSync(join(dir, 'ro'));
    chmodSync(join(dir, 'ro'), 0o555);
    writeFileSync(join(dir, 'secret-kubeconfig'), 'apiVersion: v1\nkind: Config\n');
    chmodSync(join(dir, 'secret-kubeconfig'), 0o600);
    writeFileSync(join(dir, 'kind.yaml'), MD('{}', 'ModelDeploymnt'));
    writeFileSync(join(dir, 'typo.yaml'), MD('{model: {id: a/b}, engien: {type: vllm}}'));
    writeFileSync(join(dir, 'bad.yaml'), 'a: [\n');
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    busyPort = (busy.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise((r) => busy?.close(r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const c of CASES) {
    const skip =
      c.unprivileged && isRoot && !hasRunuser
        ? 'running as root without runuser: root may bind any port and write anywhere'
        : false;
    it(c.name, { skip }, async () => {
      const r = await run(c.args(dir, busyPort), c.unprivileged === true);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      assert.equal(r.code, c.code, `exit code; stderr:\n${r.stderr}`);
      assert.match(lines[0] ?? '', c.line, r.stderr);
      if (c.verbose) assert.match(r.stderr, /\n\s+at /, 'with --verbose the stack follows the line');
      else {
        assert.equal(lines.length, 1, `exactly one line on stderr:\n${r.stderr}`);
        assert.doesNotMatch(r.stderr + r.stdout, /\n\s+at |node:internal|Node\.js v/, 'no stack trace');
      }
    });
  }
});
