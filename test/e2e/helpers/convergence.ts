// What "converged" means for the reliability tests, as lists of problems (empty = converged), so a wait that
// times out names every object still wrong: children counted by their controller owner's uid (none missing,
// none duplicated, none orphaned), and the audit log by the controllers' users for the steady-state check.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEntry, FaultedRequest } from '@modelplane/apiserver';
import type { TestFaults } from '@modelplane/apiserver/testing';
import type { KubeClient } from '@modelplane/runtime/client';
import { controllerOf, type KindRef, type KubeObject } from '@modelplane/runtime/meta';
import { waitFor } from '../../helpers/wait.ts';

export const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** the objects of `kind` in `namespace`, by the uid of their controller owner ('' for none) */
export async function childrenByOwner(
  admin: KubeClient,
  kind: KindRef<KubeObject>,
  namespace: string,
): Promise<Map<string, KubeObject[]>> {
  const out = new Map<string, KubeObject[]>();
  for (const child of (await admin.list(kind, { namespace })).items) {
    const uid = controllerOf(child)?.uid ?? '';
    out.set(uid, [...(out.get(uid) ?? []), child]);
  }
  return out;
}

/**
 * Exactly one child of `kind` per parent, and no child whose controller owner is not a live parent: a lost
 * child, a duplicate (two objects controlled by one parent) and an orphan (a child of a deleted parent, or
 * of an earlier incarnation of a recreated one) each give a problem naming the objects.
 */
export function childProblems(
  parents: readonly KubeObject[],
  children: Map<string, KubeObject[]>,
  kind: string,
): string[] {
  const problems: string[] = [];
  const live = new Set(parents.map((p) => p.metadata.uid ?? ''));
  for (const p of parents) {
    const mine = children.get(p.metadata.uid ?? '') ?? [];
    if (mine.length === 0) problems.push(`${p.kind} ${p.metadata.name}: no ${kind}`);
    if (mine.length > 1)
      problems.push(
        `${p.kind} ${p.metadata.name}: ${mine.length} ${kind}s (${mine.map((c) => c.metadata.name).join(', ')})`,
      );
  }
  for (const [uid, kids] of children) {
    if (live.has(uid)) continue;
    for (const c of kids) problems.push(`${kind} ${c.metadata.name} (owner uid ${uid || 'none'}) has no live parent`);
  }
  return problems;
}

/** names expected but missing (lost) and present but not expected (a delete undone, or a stray create) */
export function nameProblems(kind: string, actual: readonly KubeObject[], expected: Iterable<string>): string[] {
  const want = new Set(expected);
  const have = new Set(actual.map((o) => o.metadata.name ?? ''));
  return [
    ...[...want].filter((n) => !have.has(n)).map((n) => `${kind} ${n} is missing`),
    ...[...have].filter((n) => !want.has(n)).map((n) => `${kind} ${n} should not exist`),
  ];
}

/** the controllers' writes the audit log recorded after `sinceIso` (requests that got an answer, any code) */
export function writesSince(
  entries: readonly AuditEntry[],
  users: readonly string[],
  sinceIso: string,
  ignoreResources: readonly string[] = [],
): string[] {
  return entries
    .filter(
      (e) =>
        e.time > sinceIso &&
        users.includes(e.user) &&
        WRITE_VERBS.includes(e.verb) &&
        !ignoreResources.some((r) => e.resource === r || e.resource.startsWith(`${r}/`)),
    )
    .map(
      (e) =>
        `${e.time} ${e.user.replace(/^system:serviceaccount:[^:]+:/, '')} ${e.verb} ${e.resource} ${e.namespace}/${e.name} → ${e.code}`,
    );
}

/** how many of the controllers' requests the injected faults answered with `codes` since `sinceIso` */
export function faultedRequests(
  faults: TestFaults,
  users: readonly string[],
  sinceIso: string,
  codes: readonly number[],
): number {
  return faults.faulted().filter((e) => e.time > sinceIso && users.includes(e.user) && codes.includes(e.code)).length;
}

/**
 * Waits until the requests the injected faults answered since `sinceIso` satisfy `enough`: faults stay on
 * until they hit what they are there to hit (every new object, the retries after a conflict), not for a
 * fixed time that is too long on a quiet machine and may be too short on a loaded one.
 */
export async function waitForFaulted(
  what: string,
  faults: TestFaults,
  sinceIso: string,
  enough: (answered: FaultedRequest[]) => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  let seen: FaultedRequest[] = [];
  await waitFor(
    what,
    () => {
      seen = faults.faulted().filter((e) => e.time > sinceIso);
      return enough(seen);
    },
    {
      timeoutMs,
      intervalMs: 100,
      detail: () => `${seen.length} faulted requests since ${sinceIso}, the last: ${JSON.stringify(seen.slice(-5))}`,
    },
  );
}

/** `answered` holds at least `times` answers `code` to each of `names` on `resource` */
export function answeredEach(
  answered: readonly FaultedRequest[],
  names: readonly string[],
  resource: string,
  code: number,
  times: number,
): boolean {
  return names.every(
    (n) => answered.filter((e) => e.name === n && e.resource === resource && e.code === code).length >= times,
  );
}

/** `answered` holds each of `codes` at least once */
export function answeredCodes(answered: readonly FaultedRequest[], codes: readonly number[]): boolean {
  return codes.every((c) => answered.some((e) => e.code === c));
}

/**
 * `fn`, retried while the API server is away (restarting) or briefly refuses: the test's own writes must
 * land even during the faults it injects into the controllers' requests.
 */
export async function retrying<T>(what: string, fn: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`${what} kept failing for ${timeoutMs} ms: ${(err as Error).message}`, { cause: err });
      await sleep(150);
    }
  }
}

export const nowIso = (): string => new Date().toISOString();

/** Waits until no workload reports a problem; a timeout names them, with `detail` on what is stuck. */
export async function waitConverged<W extends { problems(): Promise<string[]> }>(
  what: string,
  workloads: W[],
  timeoutMs: number,
  detail: (workloads: W[], problems: string[]) => Promise<string>,
): Promise<void> {
  let last: string[] = [];
  await waitFor(
    what,
    async () => {
      last = (await Promise.all(workloads.map((w) => w.problems()))).flat();
      return last.length === 0;
    },
    { timeoutMs, intervalMs: 300, detail: () => detail(workloads, last) },
  );
}

/**
 * The controllers' writes during a quiet period (1.5 s to settle, then 4 s watched). A list of `kind` by the
 * test inside the window proves the audit log read is the live server's (it fails the test otherwise).
 */
export async function writesInQuietPeriod(
  auditEntries: () => AuditEntry[],
  admin: KubeClient,
  probe: { kind: KindRef; resource: string; namespace: string },
  users: readonly string[],
  ignoreResources: readonly string[] = [],
): Promise<string[]> {
  await sleep(1_500);
  const mark = nowIso();
  await sleep(4_000);
  await admin.list(probe.kind, { namespace: probe.namespace });
  if (!auditEntries().some((e) => e.time > mark && e.resource === probe.resource && e.verb === 'list'))
    throw new Error('the audit log did not record the quiet period');
  return writesSince(auditEntries(), users, mark, ignoreResources);
}
