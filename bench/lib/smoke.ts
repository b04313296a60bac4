// Smoke mode (MODELPLANE_BENCH_SMOKE=1, set by `npm run bench:smoke`): every benchmark runs with a small
// count, so CI proves it still completes and prints its result line. Its figures mean nothing.
export const SMOKE = process.env.MODELPLANE_BENCH_SMOKE === '1';

/** `full` normally, `small` in smoke mode */
export const smokeOr = <T>(full: T, small: T): T => (SMOKE ? small : full);
