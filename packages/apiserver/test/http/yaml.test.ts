// The pieces behind content negotiation, checked against what kube-apiserver's libraries do: go-yaml v2 as
// sigs.k8s.io/yaml drives it (key order, which strings get quoted and how, literal blocks, folding at column
// 80, number formats, indentless sequences) and goautoneg's Accept parsing and ordering.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateOutput, parseAccept } from '../../src/http/negotiate.ts';
import { goFloat, toYaml, yamlKeyLess } from '../../src/http/yaml-output.ts';

describe('YAML output (sigs.k8s.io/yaml JSONToYAML)', () => {
  it('sorts keys the go-yaml way: digit runs as numbers, non-letters before letters', () => {
    const keys = ['b', 'a10', 'a2', 'A', '_x', 'a', '1', '10', '2', 'a-b', 'ab'];
    assert.deepEqual(
      [...keys].sort((x, y) => (yamlKeyLess(x, y) ? -1 : yamlKeyLess(y, x) ? 1 : 0)),
      ['_x', '1', '2', '10', 'A', 'a', 'a-b', 'a2', 'a10', 'ab', 'b'],
    );
  });

  it('writes block mappings, indentless sequences and flow-style empty collections', () => {
    const out = toYaml({
      spec: { containers: [{ name: 'a', args: ['x', 'y'] }, 'plain'], empty: {}, none: [], nested: [[1, 2]] },
      kind: 'Pod',
    });
    assert.equal(
      out,
      [
        'kind: Pod',
        'spec:',
        '  containers:',
        '  - args:',
        '    - x',
        '    - "y"',
        '    name: a',
        '  - plain',
        '  empty: {}',
        '  nested:',
        '  - - 1',
        '    - 2',
        '  none: []',
        '',
      ].join('\n'),
    );
  });

  it('quotes strings that would read back as something else, single quotes for indicators', () => {
    const cases: [string, string][] = [
      ['true', '"true"'],
      ['yes', '"yes"'],
      ['Off', '"Off"'],
      ['~', '"~"'],
      ['null', '"null"'],
      ['', '""'],
      ['123', '"123"'],
      ['0x1F', '"0x1F"'],
      ['1e3', '"1e3"'],
      ['1_000', '"1_000"'],
      ['.5', '".5"'],
      ['1:20', '"1:20"'],
      ['2026-01-01T00:00:00Z', '"2026-01-01T00:00:00Z"'],
      ['2026-1-2', '"2026-1-2"'],
      ['2026-13-01', '2026-13-01'],
      ['a: b', "'a: b'"],
      ['- x', "'- x'"],
      ['*star', "'*star'"],
      ["it's", "it's"],
      ['#c', "'#c'"],
      ['a #b', "'a #b'"],
      [' lead', "' lead'"],
      ['trail ', "'trail '"],
      ['{x}', "'{x}'"],
      ['-x', '-x'],
      ['a:b', 'a:b'],
      ['plain text', 'plain text'],
      ['tab\there', '"tab\\there"'],
      ['bell\u0007', '"bell\\a"'],
      ['🚀', '"\\U0001F680"'],
      ['ünï', 'ünï'],
      ['say "hi"', 'say "hi"'],
    ];
    for (const [value, want] of cases) assert.equal(toYaml({ k: value }), `k: ${want}\n`, JSON.stringify(value));
  });

  it('writes multi-line text as literal blocks with the right chomping, and double quotes when a block cannot hold it', () => {
    assert.equal(toYaml({ k: 'a\nb' }), 'k: |-\n  a\n  b\n');
    assert.equal(toYaml({ k: 'a\nb\n' }), 'k: |\n  a\n  b\n');
    assert.equal(toYaml({ k: 'a\n\nb\n\n' }), 'k: |+\n  a\n\n  b\n\n');
    assert.equal(toYaml({ k: ' indented\nx' }), 'k: |2-\n   indented\n  x\n');
    assert.equal(toYaml({ k: 'trailing \nspace' }), 'k: "trailing \\nspace"\n');
    assert.equal(toYaml({ 'multi\nkey': 1 }), '? |-\n  multi\n  key\n: 1\n');
  });

  it('folds long plain and quoted strings at spaces past column 80', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const out = toYaml({ description: words });
    const lines = out.trimEnd().split('\n');
    assert.ok(lines.length > 1 && lines.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('   ')), out);
    assert.equal(lines.map((l) => l.trim()).join(' '), `description: ${words}`);
    assert.ok(lines[0]!.length > 80 && lines[0]!.length < 90);
  });

  it('prints numbers as go-yaml does after reading JSON: integers as written, floats in Go %g', () => {
    assert.equal(
      toYaml({ a: 1, b: 0.5, c: 1e21, d: 1234567.5, e: 1.5e-7, f: 100, g: -0.25 }),
      'a: 1\nb: 0.5\nc: 1e+21\nd: 1.2345675e+06\ne: 1.5e-07\nf: 100\ng: -0.25\n',
    );
    assert.deepEqual(
      [goFloat(1e6 + 0.5), goFloat(123456.5), goFloat(0.0001), goFloat(0.00001)],
      ['1.0000005e+06', '123456.5', '0.0001', '1e-05'],
    );
  });
});

describe('Accept parsing and negotiation (goautoneg)', () => {
  it('drops malformed clauses, reads q (0 when unparseable) and orders by q then specificity', () => {
    const order = (h: string) => parseAccept(h).map((c) => `${c.type}/${c.subType};q=${c.q}`);
    assert.deepEqual(order('text/html;q=0.2, application/json, */*;q=0.5, ;;;, application, a/b/c'), [
      'application/json;q=1',
      '*/*;q=0.5',
      'text/html;q=0.2',
    ]);
    assert.deepEqual(order('application/yaml;q=abc, application/json;q= 0.9'), [
      'application/yaml;q=0',
      'application/json;q=0',
    ]);
    assert.deepEqual(order('*/*, application/*, application/json'), [
      'application/json;q=1',
      'application/*;q=1',
      '*/*;q=1',
    ]);
  });

  it('picks the first acceptable clause, skipping conversions the endpoint cannot make', () => {
    const caps = { protobuf: true, conversions: true };
    assert.deepEqual(negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', caps), {
      format: 'json',
      pretty: false,
      convert: 'Table',
      convertVersion: 'v1',
    });
    assert.deepEqual(negotiateOutput('application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml', caps), {
      format: 'yaml',
      pretty: false,
    });
    assert.deepEqual(
      negotiateOutput('application/vnd.kubernetes.protobuf,application/json', { protobuf: false, conversions: true }),
      { format: 'json', pretty: false },
    );
    assert.deepEqual(negotiateOutput('application/json;pretty=1', caps), { format: 'json', pretty: true });
    assert.throws(
      () => negotiateOutput('application/yaml', caps, { stream: true }),
      /only the following media types are accepted: application\/json;stream=watch/,
    );
    assert.throws(
      () => negotiateOutput('text/plain', caps),
      (e: { code: number }) => e.code === 406,
    );
  });
});
