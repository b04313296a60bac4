// Types of scripts/test-pools.mjs (plain JavaScript, so the test runner needs no loader).
import type { Writable } from 'node:stream';
import type { Pool } from './test-schedule.mjs';
export function parsePools(argv: string[]): Pool[];
export function runPools(
  pools: Pool[],
  reporter: Writable,
  signal?: AbortSignal,
): Promise<{ total: Record<string, number>; ok: boolean }>;
