// unquoteExtend against Go's strconv.Unquote rules (client-go's UnquoteExtend lets single quotes hold a string).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unquoteExtend } from '../src/jsonpath/unquote.ts';

const CASES: Array<[string, string | undefined]> = [
  ['"abc"', 'abc'],
  ["'abc'", 'abc'],
  ['"a\\nb\\tc"', 'a\nb\tc'],
  ['"\\a\\b\\f\\r\\v"', '\x07\b\f\r\v'],
  ['"\\x41\\x62"', 'Ab'],
  ['"\\u00e9"', 'é'],
  ['"\\U0001F600"', '😀'],
  ['"\\101"', 'A'],
  ['"\\\\"', '\\'],
  ['"é😀"', 'é😀'],
  ["'\\''", "'"],
  ['"\\""', '"'],
  ['"\\xff"', '\uFFFD'],
  ['"\\400"', undefined],
  ['"\\18"', undefined],
  ['"\\8"', undefined],
  ['"\\q"', undefined],
  ['"\\u12"', undefined],
  ['"\\ud800"', undefined],
  ['"\\U00110000"', undefined],
  ['"a"b"', undefined],
  ["'\\\"'", undefined],
  ['"\\\'"', undefined],
  ['"abc\\"', undefined],
  ['"abc', undefined],
  ['"abc\'', undefined],
  ['"', undefined],
];

describe('unquoteExtend', () => {
  for (const [quoted, want] of CASES) {
    it(`${quoted} → ${want === undefined ? 'invalid syntax' : JSON.stringify(want)}`, () => {
      assert.equal(unquoteExtend(quoted), want);
    });
  }
});
