// A small seeded PRNG (mulberry32) so a fuzz run is reproducible from the seed it prints.
import { prng } from '../../src/testing/index.ts';

export class Prng {
  /** uniform in [0, 1) */
  readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = prng(seed);
  }

  /** integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** integer in [lo, hi] */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Prng.pick: cannot pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** picks by weight: entries are [weight, value] */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    const total = entries.reduce((s, [w]) => s + w, 0);
    let x = this.next() * total;
    for (const [w, v] of entries) {
      x -= w;
      if (x < 0) return v;
    }
    return entries[entries.length - 1]![1];
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  /** a string of `n` characters drawn from `alphabet` */
  string(n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-'): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

/** FUZZ_SEED from the environment (decimal or 0x-hex), else a fresh random seed. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FUZZ_SEED?.trim();
  if (raw) {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
      throw new Error(`FUZZ_SEED must be an integer in [0, 2^32), got "${raw}"`);
    return n;
  }
  return Math.floor(Math.random() * 0x100000000);
}
