// String formats (kube's go-openapi list plus quantity) and the Go-style value formatting used in messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goFloat, goQuote, goSyntax, goValue } from '../../src/schema/field-errors.ts';
import { isQuantityString, kubeStringFormat } from '../../src/schema/formats.ts';

const formats: [format: string, valid: string[], invalid: string[]][] = [
  ['byte', ['aGVsbG8=', ''], ['aGVsbG8', 'not base64!']],
  ['date', ['2026-02-28', '2024-02-29'], ['2026-02-30', '2026-2-1', '20260101']],
  [
    'date-time',
    ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.123+02:00', '2026-01-02T03:04:05'],
    ['2026-01-02', 'yesterday', '2026-01-02T25:00:00Z'],
  ],
  ['datetime', ['2026-01-02T03:04:05Z'], ['nope']],
  [
    'uuid',
    ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
    ['123e4567-e89b-12d3-a456', 'g23e4567-e89b-12d3-a456-426614174000'],
  ],
  ['uuid4', ['123e4567-e89b-42d3-a456-426614174000'], ['123e4567-e89b-12d3-a456-426614174000']],
  [
    'hostname',
    ['example.com', 'svc-1.default.svc.cluster.local', 'localhost'],
    ['-bad.example.com', 'a..b', `${'a'.repeat(64)}.com`],
  ],
  ['ipv4', ['10.0.0.1', '255.255.255.255'], ['256.0.0.1', '10.0.0', '010.0.0.1', '::1']],
  ['ipv6', ['::1', 'fe80::1', '2001:db8::8a2e:370:7334'], ['10.0.0.1', 'fe80::1%eth0', ':::']],
  ['cidr', ['10.0.0.0/8', '2001:db8::/32'], ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/08']],
  [
    'mac',
    ['00:1a:2b:3c:4d:5e', '00-1A-2B-3C-4D-5E', '001a.2b3c.4d5e'],
    ['00:1a:2b:3c:4d', '00:1a-2b:3c:4d:5e', 'zz:1a:2b:3c:4d:5e'],
  ],
  [
    'uri',
    ['https://example.com/a?b=c', '/absolute/path', 'mailto:a@b.c'],
    ['relative/path', '', 'http://exa mple.com'],
  ],
  ['email', ['a@example.com', 'Team <ml@example.com>'], ['ml team', 'a@', '@example.com']],
  ['duration', ['30s', '1h30m', '1.5h', '-2m', '0', '3 days', '2w'], ['30 parsecs', 'soon', '1x']],
  ['hexcolor', ['#fff', 'A0B1C2'], ['#ffff', 'red']],
  ['password', ['anything at all'], []],
];

describe('kube string formats', () => {
  for (const [format, valid, invalid] of formats) {
    it(format, () => {
      const check = kubeStringFormat(format);
      assert.ok(check, `${format} is validated`);
      for (const s of valid) assert.equal(check(s), true, `${format} should accept ${JSON.stringify(s)}`);
      for (const s of invalid) assert.equal(check(s), false, `${format} should reject ${JSON.stringify(s)}`);
    });
  }

  it('ignores formats kube does not validate (they are stripped from the schema)', () => {
    for (const f of ['int32', 'int64', 'float', 'double', 'quantity', 'color', undefined])
      assert.equal(kubeStringFormat(f), undefined, String(f));
  });

  it('quantity', () => {
    for (const s of ['10Gi', '500m', '1.5', '1e3', '+2Ki']) assert.equal(isQuantityString(s), true, s);
    for (const s of ['10 gigs', '1.2.3', '']) assert.equal(isQuantityString(s), false, s);
  });
});

describe('Go value formatting in messages', () => {
  const table: [unknown, string][] = [
    ['a"b\n', '"a\\"b\\n"'],
    [300, '300'],
    [1.5, '1.5'],
    [true, 'true'],
    [null, '"null"'],
    [{ b: 1, a: ['x', 2.5, null] }, 'map[string]interface {}{"a":[]interface {}{"x", 2.5, interface {}(nil)}, "b":1}'],
  ];
  for (const [value, want] of table) it(`goValue(${JSON.stringify(value)})`, () => assert.equal(goValue(value), want));

  it('floats print like Go %v', () => {
    assert.equal(goFloat(1e6), '1e+06');
    assert.equal(goFloat(123456.5), '123456.5');
    assert.equal(goFloat(0.0001), '0.0001');
    assert.equal(goFloat(0.00001), '1e-05');
    assert.equal(goFloat(1234567.25), '1.23456725e+06');
  });

  it('quotes control characters like strconv.Quote', () => {
    assert.equal(goQuote('\u0001\t'), '"\\x01\\t"');
    assert.equal(goSyntax(['é']), '[]interface {}{"é"}');
  });
});
