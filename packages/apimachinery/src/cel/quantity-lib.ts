// Kubernetes' CEL quantity library: quantity(), isQuantity() and the Quantity methods (sign, isInteger,
// asInteger, asApproximateFloat, add, sub, isLessThan, isGreaterThan, compareTo), with `==` by value so
// quantity('1') == quantity('1000m').

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';
import { isQuantity, parseQuantity, Quantity } from '../quantity.ts';

function toQuantity(s: string): Quantity {
  try {
    return parseQuantity(s);
  } catch (err) {
    throw new EvaluationError(`quantity() error: ${(err as Error).message}`);
  }
}

function asInteger(q: Quantity): bigint {
  try {
    return q.asInteger();
  } catch {
    throw new EvaluationError('cannot convert value to integer');
  }
}

export function registerQuantityLibrary(env: Environment): void {
  env.registerType('Quantity', Quantity);
  env.registerFunction('quantity(string): Quantity', toQuantity);
  env.registerFunction('isQuantity(string): bool', isQuantity);
  env.registerFunction('Quantity.sign(): int', (q: Quantity) => BigInt(q.sign()));
  env.registerFunction('Quantity.isInteger(): bool', (q: Quantity) => q.isInteger());
  env.registerFunction('Quantity.asInteger(): int', asInteger);
  env.registerFunction('Quantity.asApproximateFloat(): double', (q: Quantity) => q.asApproximateFloat());
  env.registerFunction('Quantity.add(Quantity): Quantity', (a: Quantity, b: Quantity) => a.add(b));
  env.registerFunction('Quantity.add(int): Quantity', (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b)));
  env.registerFunction('Quantity.sub(Quantity): Quantity', (a: Quantity, b: Quantity) => a.sub(b));
  env.registerFunction('Quantity.sub(int): Quantity', (a: Quantity, b: bigint) => a.sub(Quantity.fromInt(b)));
  env.registerFunction('Quantity.isLessThan(Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) < 0);
  env.registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) > 0);
  env.registerFunction('Quantity.compareTo(Quantity): int', (a: Quantity, b: Quantity) => BigInt(a.cmp(b)));
  env.registerOperator('Quantity == Quantity', (a: Quantity, b: Quantity) => a.equals(b));
}
