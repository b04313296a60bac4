// The controller sets `modelplane run --controllers …` can start, each with the RBAC rules it needs. A set is
// the unit of deployment: one process may run several, a provider runs alone (`modelplane provider`). The
// rules are the single source for deploy/rbac/ and for the tests that run controllers under their own
// ServiceAccount, so a set that starts using a new resource must say so here or its tests fail with 403s.
import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import type { ImageRegistry } from '@modelplane/runtime/registry';
import type { PolicyRule } from './rbac.ts';

export interface OperatorEnv {
  /** AIM_SYSTEM_NAMESPACE (default aim-system): where cluster-scoped AIM consumers resolve namespaced configs */
  operatorNamespace: string;
  /** the namespace this process runs in (POD_NAMESPACE, default modelplane-system): its Secret and Service live there */
  podNamespace: string;
  log: Logger;
  webhook?: WebhookEnv;
  /** where the AIM controllers read image labels and list model registries (modelplane dev: the simulated one) */
  imageRegistry?: ImageRegistry;
  /** where the operator reaches a Service port (default: cluster DNS; modelplane dev: the simulated pods) */
  serviceUrl?: (namespace: string, service: string, port: number) => Promise<string | undefined>;
}

export interface WebhookEnv {
  port: number;
  host: string;
  /** told the server's URL once it listens (modelplane dev points the webhook Service at it) */
  onListening?: (url: string) => Promise<void> | void;
}

export interface ControllerSet {
  /** the name `--controllers` takes */
  name: string;
  description: string;
  register(mgr: Manager, env: OperatorEnv): Promise<unknown>;
  rules: readonly PolicyRule[];
  /** rules granted only in the namespace the operator is deployed to */
  namespaceRules?: readonly PolicyRule[];
}

export class UnknownControllerError extends Error {
  constructor(unknown: string[], known: readonly string[]) {
    super(
      `unknown controller${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')} in --controllers: known ones are ${known.join(', ')}`,
    );
    this.name = 'UnknownControllerError';
  }
}

/** the sets named in a comma-separated list (`all` or empty = every set), in registry order */
export function selectControllerSets(all: readonly ControllerSet[], list: string | undefined): ControllerSet[] {
  const names = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return [...all];
  const known = all.map((s) => s.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new UnknownControllerError(unknown, known);
  return all.filter((s) => names.includes(s.name));
}
