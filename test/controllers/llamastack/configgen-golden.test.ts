// Golden files for the config generator: each directory under golden/ holds a LlamaStackDistribution
// (cr.yaml), optionally a base config (base.yaml; otherwise the embedded one of the named distribution)
// and resolved endpoints (endpoints.json), and the expected outcome: want-config.yaml (+ want-secrets.json)
// or want-err.txt ("<reason>: <message>"). UPDATE_GOLDEN=1 rewrites the expectations; review the diff.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { type LlamaStackDistribution, normalizeV1Alpha2Spec } from '../../../src/apis/llamastack/index.ts';
import {
  ConfigGenerationError,
  embeddedBaseConfig,
  generateConfig,
} from '../../../src/controllers/llamastack/config/index.ts';

const DIR = join(import.meta.dirname, 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function outcome(dir: string): { config?: string; secrets?: string; err?: string } {
  const cr = parseYaml(readFileSync(join(dir, 'cr.yaml'), 'utf8')) as LlamaStackDistribution;
  const spec = normalizeV1Alpha2Spec(cr.spec);
  const basePath = join(dir, 'base.yaml');
  const base = existsSync(basePath)
    ? parseYaml(readFileSync(basePath, 'utf8'))
    : embeddedBaseConfig(spec.distribution.name ?? '');
  assert.ok(base, `${dir}: no base.yaml and no embedded distribution ${spec.distribution.name}`);
  const endpointsPath = join(dir, 'endpoints.json');
  const endpoints = existsSync(endpointsPath) ? JSON.parse(readFileSync(endpointsPath, 'utf8')) : {};
  try {
    const g = generateConfig({ spec, base, distroName: spec.distribution.name ?? spec.distribution.image!, endpoints });
    return { config: g.yaml, ...(g.secrets.length ? { secrets: `${JSON.stringify(g.secrets, null, 2)}\n` } : {}) };
  } catch (err) {
    if (!(err instanceof ConfigGenerationError)) throw err;
    return { err: `${err.reason}: ${err.message}\n` };
  }
}

const FILES = { config: 'want-config.yaml', secrets: 'want-secrets.json', err: 'want-err.txt' } as const;

describe('config generator golden files', () => {
  const cases = readdirSync(DIR).sort();
  it('has the acceptance cases and one case per merge rule', () => {
    assert.ok(cases.length >= 18, `only ${cases.length} cases`);
  });
  for (const name of cases) {
    it(name, () => {
      const dir = join(DIR, name);
      const got = outcome(dir);
      for (const [k, file] of Object.entries(FILES) as Array<[keyof typeof FILES, string]>) {
        const path = join(dir, file);
        if (UPDATE) {
          if (got[k] === undefined) rmSync(path, { force: true });
          else writeFileSync(path, got[k]!);
          continue;
        }
        const want = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
        assert.equal(got[k], want, `${name}/${file}`);
      }
    });
  }
});
