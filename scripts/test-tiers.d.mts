// Types of scripts/test-tiers.mjs (plain JavaScript, so the test runner needs no loader).
export function isClusterTest(file: string): boolean;
export const CLUSTER_MARKERS: RegExp;
export function allTestFiles(): string[];
