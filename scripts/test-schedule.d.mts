// Types of scripts/test-schedule.mjs (plain JavaScript, so the test runner needs no loader).
export interface FileCost {
  cpu: number;
  wall: number;
}
export interface Pool {
  concurrency: number;
  files: string[];
}
export const COSTS_FILE: URL;
export const WAITING_CPU_SHARE: number;
export const WAITING_CONCURRENCY: number;
export function loadTable(path?: string | URL): {
  files: Record<string, FileCost>;
  busyCpuShare: number;
  measured?: string;
};
export function costsOf(
  files: string[],
  costs: Record<string, FileCost>,
  isCluster: (file: string) => boolean,
): Array<FileCost & { file: string }>;
export function isWaiting(cost: FileCost, busyCpuShare?: number): boolean;
export function planPools(
  files: string[],
  opts: {
    costs?: Record<string, FileCost>;
    busyCpuShare?: number;
    isCluster?: (file: string) => boolean;
    concurrency?: number;
    waitingConcurrency?: number;
  },
): Pool[];
export function simulatePools(
  pools: Pool[],
  costs: Record<string, FileCost>,
  opts?: { busyCpuShare?: number; cores?: number; isCluster?: (file: string) => boolean },
): number;
export function npmTestPools(
  files: string[],
  opts?: {
    unitOnly?: boolean;
    table?: { files: Record<string, FileCost>; busyCpuShare: number };
    isCluster?: (file: string) => boolean;
    cores?: number;
  },
): Pool[];
