// Types of scripts/bench-list.mjs (plain JavaScript, so the test runner needs no loader).
export interface BenchEntry {
  name: string;
  file: string;
}
export function benchDirs(root?: string): string[];
export function benchEntries(root?: string): BenchEntry[];
export function smokePlan(only?: string[], root?: string): BenchEntry[];
