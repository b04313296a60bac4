/**
 * Regenerates packages/apimachinery/test/jsonpath-conformance.fixture.json from the real kubectl (run once; the fixture is checked in):
 *   node --import tsx packages/apimachinery/test/jsonpath-conformance.gen.ts [path/to/kubectl]
 *
 * jsonpath rows run `kubectl patch --local -f <object> -p {} --type merge -o jsonpath=<template>` (works offline for any
 * apiVersion/kind and leaves the object unchanged). custom-columns rows run `kubectl get widget <name>
 * -o custom-columns=V:<path>` against a throw-away discovery-only HTTP server on 127.0.0.1 (custom-columns exists only
 * on `get`). Each row records kubectl's stdout, or the client-go error message without kubectl's wrapping.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export type Expectation = { output: string } | { error: string };

export interface ConformanceRow {
  id: number;
  mode: 'jsonpath' | 'custom-columns';
  object: string;
  /** A jsonpath template, or a custom-columns path. */
  template: string;
  /** kubectl's --allow-missing-template-keys (jsonpath rows only; default true). */
  allowMissingKeys?: boolean;
  /** Output order depends on Go map iteration (random): compare space-separated words as a multiset. */
  unordered?: boolean;
  expect: Expectation;
}

export interface ConformanceFixture {
  generatedBy: string;
  kubectlVersion: string;
  objects: Record<string, unknown>;
  rows: ConformanceRow[];
}

export const DEFAULT_KUBECTL = resolve(import.meta.dirname, '../../../.tools/bin/kubectl');
export const FIXTURE_PATH = resolve(import.meta.dirname, 'jsonpath-conformance.fixture.json');

const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: 'default', ...extra });

export const OBJECTS: Record<string, unknown> = {
  pod: {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: meta('pod', {
      labels: { app: 'demo', 'org.example/team': 'blue', tier: 'web' },
      annotations: { 名前: '値', note: 'café ☕ 😀' },
    }),
    spec: {
      replicas: 3,
      ratio: 1.5,
      flag: true,
      nothing: null,
      emptyList: [],
      emptyMap: {},
      containers: [
        { name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 8080, name: 'http' }] },
        { name: 'sidecar', image: 'envoy:v1', ports: [{ containerPort: 9901 }, { containerPort: 15000 }] },
        { name: 'init', image: 'busybox' },
      ],
      ints: [1, 2, 3, 10],
      floats: [1234567.5, 123456.5, 0.0001, 0.00001, 1e-7, 2.5e-10, 1e21, 1e20, 6.0221, -0.5, 123456789.125],
      bools: [true, false, true],
      mixed: [1, null, 'x', { k: 'v' }, [1, 2]],
      str: 'hé',
      special: 'q"b\\s<a&b>\u2028\u0001\b\f\t!',
      unicode: 'Grüße, 世界 🌍',
    },
    status: {
      podIP: '10.0.0.7',
      conditions: [
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z' },
        { type: 'PodScheduled', status: 'False', reason: 'Unschedulable' },
      ],
    },
  },
  sparse: {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: meta('sparse'),
    spec: { items: [{ name: 'a', n: 2 }, { n: 1.5 }, { name: 'c', n: 3 }], tag: 'x\x1by\rz' },
  },
  // Go orders map keys and compares strings by UTF-8 bytes; JS's default order is by UTF-16 code units.
  sorting: {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: meta('sorting'),
    spec: {
      keys: { b: 1, a: 2, B: 3, '😀': 4, '\uff61': 5, é: 6, 'a b': 7, '': 8 },
      words: [{ k: '😀' }, { k: '\uff61' }, { k: 'z' }],
    },
  },
};

type Case = [object: string, template: string, opts?: { allowMissingKeys?: boolean; unordered?: boolean }];
const strict = { allowMissingKeys: false };
const unordered = { unordered: true };

export const JSONPATH_CASES: Case[] = [
  // fields, literals, several blocks
  ['pod', '{.metadata.name}'],
  ['pod', '{.metadata.namespace}/{.metadata.name}'],
  ['pod', 'name: {.metadata.name}, ip: {.status.podIP}'],
  ['pod', 'plain text only'],
  ['pod', 'a}b'],
  ['pod', '{.metadata.name}{.metadata.namespace}'],
  ['pod', '{$.metadata.name} {@.metadata.name}'],
  ['pod', '{ .metadata .name }'],
  ['pod', '{.metadata.labels}'],
  ['pod', '{.metadata.labels.app}'],
  // bracketed keys and escapes
  ['pod', "{.metadata.labels['org.example/team']}"],
  ['pod', "{.metadata.labels['org.example/team']}", strict],
  ['pod', "{.metadata.labels['org\\.example/team']}"],
  ['pod', '{.metadata.labels.org\\.example/team}'],
  ['pod', '{.metadata.labels["app"]}'],
  ['pod', ".metadata.labels['org.example/team']"],
  ['pod', "{.metadata.labels['app','tier']}"],
  ['pod', "{.metadata.labels['app']}"],
  ['pod', "{.spec.containers[0]['na me']}"],
  // arrays: index, negative, slices, steps, unions, bounds
  ['pod', '{.spec.containers[*].name}'],
  ['pod', '{.spec.containers[0].image}'],
  ['pod', '{.spec.containers[-1].name}'],
  ['pod', '{.spec.containers[1:].name}'],
  ['pod', '{.spec.containers[0:2].name}'],
  ['pod', '{.spec.containers[:-1].name}'],
  ['pod', '{.spec.containers[::2].name}'],
  ['pod', '{.spec.containers[0,2].name}'],
  ['pod', '{.spec.containers[].name}'],
  ['pod', '{.spec.containers[5].name}'],
  ['pod', '{.spec.containers[-4].name}'],
  ['pod', '{.spec.containers[0:10].name}'],
  ['pod', '{.spec.containers[2:1].name}'],
  ['pod', '{.spec.containers[1:1].name}'],
  ['pod', '{.spec.containers[::0].name}'],
  ['pod', '{.spec.emptyList[0]}'],
  ['pod', '{.spec.containers[*].ports[*].containerPort}'],
  ['pod', "{.spec.containers[*]['name','image']}"],
  ['pod', '{.spec.mixed[*]}'],
  ['pod', '{.spec.mixed}'],
  // filters
  ['pod', '{.status.conditions[?(@.type=="Ready")].status}'],
  ['pod', "{.status.conditions[?(@.type == 'Ready')].lastTransitionTime}"],
  ['pod', '{.status.conditions[?(@.status!="True")].type}'],
  ['pod', '{.status.conditions[?(@.reason)].type}'],
  ['pod', '{.status.conditions[?(@.reason=="Unschedulable")].type}', strict],
  ['pod', '{.spec.containers[?(@.ports)].name}'],
  ['pod', '{.spec.containers[?(@.ports[0].containerPort>9000)].name}'],
  ['pod', '{.spec.containers[?(@.ports[1])].name}'],
  ['pod', '{.spec.containers[?(@.ports[5].containerPort==1)].name}'],
  ['pod', '{.spec.containers[?(@.name<"b")].name}'],
  ['pod', '{.spec.containers[?(@.name>=1)].name}'],
  ['pod', '{.spec.containers[?(@.name<>"x")].name}'],
  ['pod', '{.spec.containers[?(@.name==@.image)].name}'],
  ['pod', '{.spec.ints[?(@>=2)]}'],
  ['pod', '{.spec.ints[?(@==2.0)]}'],
  ['pod', '{.spec.floats[?(@>1.5)]}'],
  ['pod', '{.spec.bools[?(@==true)]}'],
  ['pod', '{.spec.bools[?(@<true)]}'],
  ['pod', '{.spec.mixed[?(@=="x")]}'],
  ['pod', '{.spec.ratio[?(@.x)]}'],
  ['pod', '{.metadata.labels[?(@.x)]}'],
  ['sparse', '{.spec.items[?(@.n>1)].name}'],
  ['sparse', '{.spec.items[?(@.name=="c")].n}'],
  ['sparse', '{.spec.items[?(@.name=="c")].n}', strict],
  ['sorting', '{.spec.words[?(@.k<"\uff61")].k}'],
  ['sorting', '{.spec.words[?(@.k>"z")].k}'],
  // scalars and printing
  ['pod', '{.spec.replicas} {.spec.ratio} {.spec.flag} {.spec.nothing}'],
  ['pod', '{.spec.floats[*]}'],
  ['pod', '{.spec.floats}'],
  ['pod', '{.spec.emptyList} {.spec.emptyMap}'],
  ['pod', '{.spec.special}'],
  ['pod', '{.spec}'],
  ['pod', '{.metadata.annotations}'],
  ['pod', '{.metadata.annotations.名前} {.spec.unicode}'],
  ['pod', '{.spec.str.*}'],
  ['pod', '{1} {1.50} {100000000.0} {-2} {true}'],
  ['pod', '{"literal \\"quoted\\""} {\'single\'} {"tab\\there"}'],
  ['pod', '{"\\u00e9\\x41\\101\\n"}'],
  // whole object and odd actions
  ['sparse', '{}'],
  ['sparse', '{@}'],
  ['sparse', '{.}'],
  ['sorting', '{.spec.keys}'],
  ['sorting', '{.spec.keys.*}', unordered],
  // ranges
  ['pod', '{range .spec.containers[*]}{.name}{"\\t"}{.image}{"\\n"}{end}'],
  ['pod', '{range .spec.containers[*]}[{.name}]{end} done'],
  ['pod', '{range .spec.containers[*]}{.name}:{range .ports[*]}{.containerPort},{end};{end}'],
  ['pod', '{range .spec.emptyList[*]}x{end}done'],
  ['pod', '{range .spec.emptyList[*]}{.name}{end}done', strict],
  ['pod', '{range .spec.mixed[*]}<{@}>{end}'],
  ['pod', '{range .spec.ints[*]}[{@}]'],
  ['pod', '{range .spec.containers[*]}{.ports[0].containerPort} {end}', strict],
  ['pod', '{end}'],
  // recursive descent and wildcards (Go map order is random: compare as multisets)
  ['pod', '{..containerPort}', unordered],
  ['pod', '{.spec.containers..name}', unordered],
  ['pod', '{..ports[0].containerPort}', unordered],
  ['pod', '{.metadata.labels.*}', unordered],
  ['pod', '{.spec.containers[0].ports[0].*}', unordered],
  ['pod', '{.spec.containers[*].ports[*]..containerPort}', unordered],
  // missing keys
  ['pod', '{.metadata.missing}'],
  ['pod', '{.metadata.missing}', strict],
  ['pod', '{.metadata.missing.deeper}', strict],
  ['pod', '{.spec.containers[*].ports}', strict],
  ['pod', 'x{.spec.containers[*].missing}y'],
  // errors
  ['pod', '{.spec.replicas[0]}'],
  ['pod', '{.metadata[0]}'],
  ['pod', '{.metadata.name'],
  ['pod', '{'],
  ['pod', '{.spec.containers[0}'],
  ['pod', '{.spec.containers[?(@.name=="a"}'],
  ['pod', '{.spec.containers[?(@.name=="a")}'],
  ['pod', '{.spec.containers[x]}'],
  ['pod', '{.spec.containers[1:x]}'],
  ['pod', '{.spec.containers[-]}'],
  ['pod', '{#}'],
  ['pod', '{.a\t}'],
  ['pod', '{.a\r}'],
  ['pod', '{....a}'],
  ['pod', '{..*}'],
  ['pod', '{foo}'],
  ['pod', '{.spec.containers[?(@.name=~"x")]}'],
  ['pod', '{"\\q"}'],
  ['pod', '{"unterminated}'],
  ['pod', '{1.2.3}'],
];

export const CUSTOM_COLUMN_CASES: Case[] = [
  ['pod', '.metadata.name'],
  ['pod', 'metadata.name'],
  ['pod', '{metadata.name}'],
  ['pod', '{.metadata.name}'],
  ['pod', '.metadata.labels'],
  ['pod', ".metadata.labels['org.example/team']"],
  ['pod', '.metadata.labels.org\\.example/team'],
  ['pod', '.spec.containers[*].name'],
  ['pod', '.spec.floats'],
  ['pod', '.spec.nothing'],
  ['pod', '.spec.mixed'],
  ['sparse', '.spec.tag'],
  ['sorting', '.spec.keys'],
  ['pod', '{.metadata.name}{.metadata.namespace}'],
];

const execFileAsync = promisify(execFile);

/** kubectl's client-go error text without kubectl's "error executing jsonpath ..." wrapping. */
function jsonpathExpectation(template: string, status: number, stdout: string, stderr: string): Expectation {
  if (status === 0) return { output: stdout };
  const parsePrefix = `error: error parsing jsonpath ${template}, `;
  if (stderr.startsWith(parsePrefix)) return { error: stderr.slice(parsePrefix.length).replace(/\n$/, '') };
  const exec = /Error executing template: ([\s\S]*?)\. Printing more information for debugging the template:/.exec(
    stderr,
  );
  if (exec) return { error: exec[1]! };
  throw new Error(`unexpected kubectl failure for ${JSON.stringify(template)}: ${stderr}`);
}

/** Runs `kubectl patch --local ... -o jsonpath=<template>` on object and returns what it printed or its error. */
export function kubectlJsonPath(
  kubectl: string,
  object: unknown,
  template: string,
  allowMissingKeys = true,
): Expectation {
  const dir = mkdtempSync(join(tmpdir(), 'jsonpath-gen-'));
  try {
    const file = join(dir, 'object.json');
    writeFileSync(file, JSON.stringify(object));
    const args = ['patch', '--local', '-f', file, '-p', '{}', '--type', 'merge', '-o', `jsonpath=${template}`];
    if (!allowMissingKeys) args.push('--allow-missing-template-keys=false');
    const run = spawnSync(kubectl, args, { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '/dev/null' } });
    if (run.error) throw run.error;
    return jsonpathExpectation(template, run.status ?? -1, run.stdout, run.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Serves discovery for example.com/v1 widgets plus the given objects, for `kubectl get -o custom-columns`. */
async function withWidgetServer<T>(objects: Record<string, unknown>, body: (server: string) => Promise<T>): Promise<T> {
  const server = createServer((req, res) => {
    const url = (req.url ?? '').split('?')[0]!;
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const widget = /^\/apis\/example\.com\/v1\/namespaces\/default\/widgets\/([^/]+)$/.exec(url);
    if (widget && objects[widget[1]!]) return send(200, objects[widget[1]!]);
    if (url === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'] });
    if (url === '/apis') {
      const version = { groupVersion: 'example.com/v1', version: 'v1' };
      const group = { name: 'example.com', versions: [version], preferredVersion: version };
      return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] });
    }
    if (url === '/api/v1') return send(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [] });
    if (url === '/apis/example.com/v1') {
      const widgets = { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get'] };
      return send(200, { kind: 'APIResourceList', groupVersion: 'example.com/v1', resources: [widgets] });
    }
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}

async function kubectlCustomColumn(kubectl: string, server: string, cacheDir: string, object: string, path: string) {
  const args = ['get', 'widget', object, '-n', 'default', '--server', server, '--cache-dir', cacheDir];
  args.push('-o', `custom-columns=V:${path}`);
  try {
    const { stdout } = await execFileAsync(kubectl, args, { env: { ...process.env, KUBECONFIG: '/dev/null' } });
    const lines = stdout.split('\n');
    if (lines[0] !== 'V' || lines.length !== 3)
      throw new Error(`unexpected custom-columns output ${JSON.stringify(stdout)}`);
    return { output: lines[1]! };
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr;
    if (!stderr?.startsWith('error: ')) throw err;
    return { error: stderr.slice('error: '.length).replace(/\n$/, '') };
  }
}

async function main(): Promise<void> {
  const kubectl = process.argv[2] ?? DEFAULT_KUBECTL;
  const version = spawnSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  const kubectlVersion = JSON.parse(version.stdout).clientVersion.gitVersion as string;
  const rows: ConformanceRow[] = [];
  for (const [object, template, opts] of JSONPATH_CASES) {
    const expect = kubectlJsonPath(kubectl, OBJECTS[object], template, opts?.allowMissingKeys ?? true);
    rows.push({ id: rows.length + 1, mode: 'jsonpath', object, template, ...opts, expect });
  }
  const cacheDir = mkdtempSync(join(tmpdir(), 'jsonpath-gen-cache-'));
  try {
    await withWidgetServer(OBJECTS, async (server) => {
      for (const [object, path] of CUSTOM_COLUMN_CASES) {
        const expect = await kubectlCustomColumn(kubectl, server, cacheDir, object, path);
        rows.push({ id: rows.length + 1, mode: 'custom-columns', object, template: path, expect });
      }
    });
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const fixture: ConformanceFixture = {
    generatedBy: 'node --import tsx packages/apimachinery/test/jsonpath-conformance.gen.ts',
    kubectlVersion,
    objects: OBJECTS,
    rows,
  };
  writeFileSync(FIXTURE_PATH, `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`wrote ${rows.length} rows from kubectl ${kubectlVersion} to ${FIXTURE_PATH}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
