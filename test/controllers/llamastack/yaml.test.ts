// The config.yaml writer without Python: the forms PyYAML (YAML 1.1, the server's reader) needs, checked
// against the yaml library in 1.1 mode. The server's own loader checks the same in test/real-llama-stack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { deterministicYaml } from '../../../src/controllers/llamastack/config/index.ts';

describe('config.yaml writer', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a small exponent gets a dot and a sign', 1e-7, 'v: 1.0e-7\n'],
    ['a huge one too', 1e21, 'v: 1.0e+21\n'],
    ['plain decimals stay', 0.5, 'v: 0.5\n'],
    ['U+0085 is escaped, not a line break', 'a\u0085b', 'v: "a\\x85b"\n'],
    ['C1 controls are escaped', '\u0080\u009f', 'v: "\\x80\\x9f"\n'],
    ['line and paragraph separators are escaped', '\u2028\u2029', 'v: "\\u2028\\u2029"\n'],
    ['YAML 1.1 booleans are quoted', 'on', 'v: "on"\n'],
    ['"=" (the 1.1 value tag) is quoted', '=', 'v: "="\n'],
    ['sexagesimal-looking strings are quoted', '1:20', 'v: "1:20"\n'],
    ['a BOM is escaped', '\ufeff', 'v: "\\ufeff"\n'],
    ['plain names stay plain', 'remote::vllm', 'v: "remote::vllm"\n'],
    ['paths stay plain', '/.llama/kv.db', 'v: /.llama/kv.db\n'],
  ];
  for (const [what, v, want] of cases)
    it(what, () => {
      const text = deterministicYaml({ v });
      assert.equal(text, want);
      assert.deepEqual(parse(text, { version: '1.1' }), { v });
    });

  it('keys sorted, sequences not indented, no anchors for repeated objects', () => {
    const shared = { x: 1 };
    assert.equal(deterministicYaml({ b: [shared, shared], a: 'y' }), 'a: "y"\nb:\n- x: 1\n- x: 1\n');
  });
});
