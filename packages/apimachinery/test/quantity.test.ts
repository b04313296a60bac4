import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERR_FORMAT_WRONG, ERR_SUFFIX, isQuantity, parseQuantity, Quantity } from '../src/quantity.ts';

describe('parseQuantity canonical form (kube String())', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1Ki', '1Ki'],
    ['0.5Ki', '512'],
    ['1023', '1023'],
    ['1.1Ki', '1126400m'],
    ['500m', '500m'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['0.1', '100m'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['1000000', '1M'],
    ['2k', '2k'],
    ['1M', '1M'],
    ['1E', '1E'],
    ['1n', '1n'],
    ['1e3', '1e3'],
    ['1e6', '1e6'],
    ['1.5e3', '1500'],
    ['100e-3', '100e-3'],
    ['+1', '1'],
    ['-1Gi', '-1Gi'],
    ['-500m', '-500m'],
    ['0.0000000001', '1n'],
    ['-0.0000000001', '-1n'],
    ['1.0001m', '1000100n'],
    ['10Ei', '9223372036854775807'],
    ['007', '7'],
    ['.5', '500m'],
    ['12345678901234567890', '12345678901234567890'],
  ];
  for (const [input, want] of cases) {
    it(`${input} → ${want}`, () => assert.equal(parseQuantity(input).toString(), want));
  }
});

describe('parseQuantity errors carry kube messages', () => {
  const cases: [string, string][] = [
    ['', ERR_FORMAT_WRONG],
    ['abc', ERR_FORMAT_WRONG],
    ['1Gb', ERR_FORMAT_WRONG],
    ['1 Gi', ERR_FORMAT_WRONG],
    ['1.2.3', ERR_FORMAT_WRONG],
    ['1Zi', ERR_FORMAT_WRONG],
    ['1k1', ERR_SUFFIX],
    ['1ee3', ERR_SUFFIX],
    ['1i', ERR_SUFFIX],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(() => parseQuantity(input), { message });
      assert.equal(isQuantity(input), false);
    });
  }
  it('the format message quotes the regular expression', () => {
    assert.equal(
      ERR_FORMAT_WRONG,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

describe('Quantity arithmetic and comparison', () => {
  const q = parseQuantity;
  it('compares across suffixes', () => {
    assert.equal(q('1Gi').cmp(q('1G')), 1);
    assert.equal(q('1000m').cmp(q('1')), 0);
    assert.equal(q('500m').cmp(q('1')), -1);
    assert.equal(q('-1').cmp(q('1m')), -1);
    assert.ok(q('1e3').equals(q('1k')));
    assert.equal(q('1e100').cmp(q('1Ei')), 1);
  });
  it('add keeps the receiver format unless it is zero', () => {
    assert.equal(q('1Gi').add(q('512Mi')).toString(), '1536Mi');
    assert.equal(q('0').add(q('1Ki')).format, 'BinarySI');
    assert.equal(q('1').sub(q('250m')).toString(), '750m');
  });
  it('integer views round like kube (Value rounds up, MilliValue is exact here)', () => {
    assert.equal(q('1.5').value(), 2n);
    assert.equal(q('-1.5').value(), -1n);
    assert.equal(q('1.5').milliValue(), 1500n);
    assert.equal(q('2Ki').asInteger(), 2048n);
    assert.equal(q('1.5').isInteger(), false);
    assert.throws(() => q('1.5').asInteger(), /cannot convert value to integer/);
    assert.equal(q('100Ei').isInteger(), true, 'BinarySI is capped at int64 max');
    assert.equal(q('100E').isInteger(), false, 'DecimalSI is not capped');
    assert.equal(q('250m').asApproximateFloat(), 0.25);
  });
  it('serialises to its canonical string in JSON', () => {
    assert.equal(JSON.stringify({ cpu: q('0.5') }), '{"cpu":"500m"}');
    assert.equal(Quantity.fromInt(3).toString(), '3');
  });
  it('never materialises huge exponents when comparing', () => {
    assert.equal(q('1e999999999').cmp(q('1e-999999999')), 1);
  });
});
