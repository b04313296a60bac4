// Runs the JSONPath port over the conformance table generated from kubectl (jsonpath-conformance.fixture.json),
// and, when the repository's kubectl is present, re-checks a sample of rows against kubectl live.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { customColumnText, executeJsonPath, JsonPathError } from '../src/jsonpath/index.ts';
import {
  type ConformanceFixture,
  type ConformanceRow,
  DEFAULT_KUBECTL,
  type Expectation,
  FIXTURE_PATH,
  kubectlJsonPath,
} from './jsonpath-conformance.gen.ts';

const fixture = JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as ConformanceFixture;

function actual(row: ConformanceRow): Expectation {
  const object = fixture.objects[row.object];
  try {
    if (row.mode === 'custom-columns') return { output: customColumnText(row.template, object) };
    return { output: executeJsonPath(row.template, object, { allowMissingKeys: row.allowMissingKeys ?? true }) };
  } catch (err) {
    if (err instanceof JsonPathError) return { error: err.message };
    throw err;
  }
}

/** Rows whose order follows Go's random map iteration compare as multisets of words. */
function comparable(row: ConformanceRow, result: Expectation): Expectation {
  if (!row.unordered || !('output' in result)) return result;
  return { output: result.output.split(' ').sort().join(' ') };
}

function label(row: ConformanceRow): string {
  const strict = row.allowMissingKeys === false ? ' (allowMissingKeys=false)' : '';
  return `#${row.id} ${row.mode} ${row.object} ${JSON.stringify(row.template)}${strict}`;
}

describe('JSONPath conformance with kubectl (fixture)', () => {
  test('fixture covers the required behaviours', () => {
    assert.ok(fixture.rows.length >= 40, `only ${fixture.rows.length} rows`);
    const errors = fixture.rows.filter((r) => 'error' in r.expect).map((r) => (r.expect as { error: string }).error);
    for (const expected of [
      'invalid array index "app"',
      'org is not found',
      'unclosed action',
      'not in range, nothing to end',
    ]) {
      assert.ok(errors.includes(expected), `no row expecting error ${expected}`);
    }
  });

  for (const row of fixture.rows) {
    test(label(row), () => {
      assert.deepEqual(comparable(row, actual(row)), comparable(row, row.expect));
    });
  }
});

const kubectlPresent = existsSync(DEFAULT_KUBECTL);

describe('JSONPath conformance with kubectl (live sample)', {
  skip: kubectlPresent ? false : 'no .tools/bin/kubectl',
}, () => {
  const jsonpathRows = fixture.rows.filter((row) => row.mode === 'jsonpath');
  // Ten rows spread over the table, so each run covers fields, filters, ranges, printing and errors.
  const sample = Array.from({ length: 10 }, (_, i) => jsonpathRows[Math.floor((i * jsonpathRows.length) / 10)]!);
  for (const row of sample) {
    test(label(row), () => {
      const live = kubectlJsonPath(
        DEFAULT_KUBECTL,
        fixture.objects[row.object],
        row.template,
        row.allowMissingKeys ?? true,
      );
      assert.deepEqual(comparable(row, live), comparable(row, row.expect), 'kubectl no longer matches the fixture');
      assert.deepEqual(comparable(row, actual(row)), comparable(row, live));
    });
  }
});
