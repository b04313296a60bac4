// config.yaml as the published Llama Stack server reads it: seeded random configs full of odd strings
// (C0/C1 control characters, U+0085/U+2028/U+2029, a BOM, emoji, lone surrogates, YAML indicators, words
// YAML 1.1 reads as booleans, nulls or numbers) and odd numbers (exponents, tiny, huge, negative) go
// through our writer and come back through the server's own loader (PyYAML safe_load, then its
// environment substitution) as exactly the data written; and so do whole generated configs whose provider
// settings carry such values. Needs the venv of scripts/llama-stack/setup.sh (`npm run test:llama-stack`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { prng } from '@modelplane/apiserver/testing';
import {
  deterministicYaml,
  embeddedBaseConfig,
  generateConfig,
} from '../../src/controllers/llamastack/config/index.ts';

const PYTHON = resolve('.llama-stack/venv/bin/python');
const SEED = Number(process.env.LLS_YAML_SEED ?? 20261129);

/** every YAML text loaded as the server loads config.yaml, back as JSON (or the loader's error) */
const LOADER = `
import sys, json, yaml
from llama_stack.core.stack import replace_env_vars
substitute = sys.argv[1] == "substitute"
out = []
for text in json.load(sys.stdin):
    try:
        value = yaml.safe_load(text)
        out.append({"value": replace_env_vars(value) if substitute else value})
    except Exception as e:
        out.append({"error": f"{type(e).__name__}: {e}"})
json.dump(out, sys.stdout)
`;

/** `substitute`: the server's environment substitution too (a generated config's `${env.…}` need the pod's env) */
function serverLoad(texts: string[], substitute = true): Array<{ value?: any; error?: string }> {
  const r = spawnSync(PYTHON, ['-c', LOADER, substitute ? 'substitute' : 'parse'], {
    input: JSON.stringify(texts),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const ODD_PIECES = [
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  '~',
  'null',
  'Null',
  '=',
  '<<',
  'true',
  '.inf',
  '-.Inf',
  '.nan',
  '1:20',
  '0x1F',
  '017',
  '0o17',
  '1_000',
  '1e3',
  '1e-7',
  '+1',
  '-',
  '.5',
  '2001-12-14',
  '12:30:00',
  '#',
  ': ',
  '- ',
  '? ',
  '&a',
  '*a',
  '!tag',
  '%',
  '@',
  '`',
  '|',
  '>',
  "'",
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0080',
  '\u0085',
  '\u009f',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udfff',
  '😀',
  'é',
  'ß',
  '中文',
  'plain',
  'a/b',
  '$',
  '$env',
  'C:\\path',
  'http://x:8000/v1',
];

function oddString(rand: () => number): string {
  const n = 1 + Math.floor(rand() * 4);
  let s = '';
  for (let i = 0; i < n; i++) s += ODD_PIECES[Math.floor(rand() * ODD_PIECES.length)];
  // `${…}` is the server's environment substitution, not data: never generated
  return s.replaceAll('${', '$ {');
}

const ODD_NUMBERS = [0, 1, -1, 0.5, -2.25, 1e-7, 1e21, 1.5e300, -5e-324, 2 ** 53, 123456789012, 1e-300, 0.1 + 0.2];

function oddNumber(rand: () => number): number {
  const pick = rand();
  if (pick < 0.5) return ODD_NUMBERS[Math.floor(rand() * ODD_NUMBERS.length)]!;
  if (pick < 0.75) return Math.floor((rand() - 0.5) * 2 ** 40);
  return (rand() - 0.5) * 10 ** Math.floor(rand() * 60 - 30);
}

function oddValue(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 0 && r < 0.2)
    return Object.fromEntries(
      Array.from({ length: Math.floor(rand() * 4) }, () => [oddString(rand), oddValue(rand, depth - 1)]),
    );
  if (depth > 0 && r < 0.35) return Array.from({ length: Math.floor(rand() * 4) }, () => oddValue(rand, depth - 1));
  if (r < 0.7) return oddString(rand);
  if (r < 0.92) return oddNumber(rand);
  if (r < 0.96) return rand() < 0.5;
  return null;
}

function oddDocument(rand: () => number): Record<string, unknown> {
  return Object.fromEntries(
    Array.from({ length: 1 + Math.floor(rand() * 6) }, () => [oddString(rand), oddValue(rand, 3)]),
  );
}

/** -0 is written as 0 by JSON on the way back: compare as JSON does */
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v));

describe(`config.yaml read back by the Llama Stack server's loader (seed ${SEED})`, () => {
  it('500 random documents of odd strings and numbers come back as written', () => {
    const rand = prng(SEED);
    const docs = Array.from({ length: 500 }, () => oddDocument(rand));
    const loaded = serverLoad(docs.map((d) => deterministicYaml(d)));
    docs.forEach((doc, i) => {
      const got = loaded[i]!;
      assert.equal(got.error, undefined, `document ${i}:\n${deterministicYaml(doc)}`);
      assert.deepEqual(got.value, asJson(doc), `document ${i}:\n${deterministicYaml(doc)}`);
    });
  });

  it('100 generated configs whose provider settings and model names are odd carry them to the server as given', () => {
    const rand = prng(SEED + 1);
    const base = embeddedBaseConfig('remote-vllm')!;
    const cases = Array.from({ length: 100 }, () => {
      // prefixed: a settings key may not repeat one the generator sets (base_url, api_token, …)
      const settings = Object.fromEntries(Object.entries(oddDocument(rand)).map(([k, v]) => [`s${k}`, v]));
      const model = oddString(rand);
      const { yaml } = generateConfig({
        spec: {
          distribution: { name: 'remote-vllm' },
          providers: { inference: [{ id: 'vllm', provider: 'vllm', endpoint: 'http://vllm:8000/v1', settings }] },
          resources: { models: [{ name: model }] },
        },
        base,
        distroName: 'remote-vllm',
      });
      return { yaml, settings, model };
    });
    const loaded = serverLoad(
      cases.map((c) => c.yaml),
      false,
    );
    cases.forEach((c, i) => {
      const got = loaded[i]!;
      assert.equal(got.error, undefined, `config ${i}:\n${c.yaml}`);
      const config = got.value.providers.inference.find((p: any) => p.provider_id === 'vllm').config;
      for (const [k, v] of Object.entries(c.settings)) assert.deepEqual(config[k], asJson(v), `config ${i}, ${k}`);
      const models = got.value.registered_resources.models.map((m: any) => m.model_id);
      assert.ok(models.includes(c.model), `config ${i}: model ${JSON.stringify(c.model)} in ${JSON.stringify(models)}`);
    });
  });
});

/** each YAML validated by the server's own model of a config (StackConfig), after its env substitution */
const VALIDATOR = `
import sys, json, os, re, yaml
from llama_stack.core.stack import replace_env_vars
from llama_stack.core.datatypes import StackConfig
out = []
for text in json.load(sys.stdin):
    # a variable the config names without a default is set, as the pod's environment would set it
    for name in set(re.findall(r"\\$\\{env\\.([A-Za-z0-9_]+)\\}", text)):
        # names of hosts, users and databases are words (the postgres split hands them over so); others a number
        os.environ.setdefault(name, "db-x" if re.search(r"_(HOST|USER|DB)$", name) else "1")
    try:
        StackConfig(**replace_env_vars(yaml.safe_load(text)))
        out.append({})
    except Exception as e:
        out.append({"error": f"{type(e).__name__}: {e}"})
json.dump(out, sys.stdout)
`;

describe("every golden config.yaml is a config the server's own model accepts", () => {
  it('StackConfig validates each golden want-config.yaml', () => {
    const dir = resolve('test/controllers/llamastack/golden');
    const cases = readdirSync(dir)
      .filter((d) => existsSync(join(dir, d, 'want-config.yaml')))
      .map((d) => ({ name: d, text: readFileSync(join(dir, d, 'want-config.yaml'), 'utf8') }));
    assert.ok(cases.length >= 10, `golden configs found: ${cases.length}`);
    const r = spawnSync(PYTHON, ['-c', VALIDATOR], {
      input: JSON.stringify(cases.map((c) => c.text)),
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(r.stdout) as Array<{ error?: string }>;
    const failed = cases.flatMap((c, i) => (results[i]!.error ? [`${c.name}: ${results[i]!.error}`] : []));
    assert.deepEqual(failed, []);
  });
});
