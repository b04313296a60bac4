// What the pure tests of the built-in providers (providers-*.test.ts) share: ModelDeployments as a provider's
// transform receives them, a provider's own output dressed as its upstream operator reports it, the loops
// over their transform-case and status-row tables, and a search for where a value ended up.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  KAR_API_VERSION,
  MODEL_DEPLOYMENT_KIND,
  type ModelDeployment,
  type ModelDeploymentSpec,
} from '../../../src/apis/kubeairunway/index.ts';
import type { MappedStatus } from '../../../src/controllers/kubeairunway/provider/definition.ts';

export type DeploymentBuilder = (spec: ModelDeploymentSpec, name?: string) => ModelDeployment;

/** builds ModelDeployments in `namespace` (uid `u1`), named `defaultName` unless the test names one */
export function deploymentsIn(namespace: string, defaultName: string): DeploymentBuilder {
  return (spec, name = defaultName) => ({
    apiVersion: KAR_API_VERSION,
    kind: MODEL_DEPLOYMENT_KIND,
    metadata: { name, namespace, uid: 'u1' },
    spec,
  });
}

/** `built` as its upstream operator shows it: at `generation`, carrying `status` (none when undefined) */
export function withStatus<T extends KubeObject & { status?: unknown }>(
  built: T,
  status: T['status'],
  generation = 1,
): T {
  return { ...built, metadata: { ...built.metadata, generation }, ...(status ? { status } : {}) };
}

/** every path in `obj` whose value is exactly `value` */
export function pathsOf(obj: unknown, value: string, path = ''): string[] {
  if (obj === value) return [path];
  if (Array.isArray(obj)) return obj.flatMap((v, i) => pathsOf(v, value, `${path}[${i}]`));
  if (obj && typeof obj === 'object') return Object.entries(obj).flatMap(([k, v]) => pathsOf(v, value, `${path}.${k}`));
  return [];
}

export interface TransformCase<T> {
  name: string;
  spec: ModelDeploymentSpec;
  check: (built: T) => void;
}

/** one test per case: the case's `check` (then `alsoCheck`) on what `transform` built, and its input left unmodified */
export function transformCases<T>(
  cases: TransformCase<T>[],
  build: DeploymentBuilder,
  transform: (md: ModelDeployment) => T,
  alsoCheck?: (built: T) => void,
): void {
  for (const c of cases) {
    it(c.name, () => {
      const input = build(c.spec);
      const before = structuredClone(input);
      const built = transform(input);
      c.check(built);
      alsoCheck?.(built);
      assert.deepEqual(input, before, 'transform does not modify the ModelDeployment');
    });
  }
}

export interface StatusRow {
  name: string;
  phase: string;
  message?: string;
}

/** one test per row: `map` gives the row's phase and message, and `alsoCheck` holds for what it mapped */
export function statusRows<R extends StatusRow>(
  rows: R[],
  map: (row: R) => MappedStatus,
  alsoCheck?: (mapped: MappedStatus, row: R) => void,
): void {
  for (const r of rows) {
    it(r.name, () => {
      const mapped = map(r);
      assert.equal(mapped.phase, r.phase);
      assert.equal(mapped.message, r.message);
      alsoCheck?.(mapped, r);
    });
  }
}
