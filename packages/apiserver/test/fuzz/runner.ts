// Drives a fuzz run: N generated requests over a few keep-alive connections, each judged on arrival;
// findings are grouped by signature, replayed to confirm and shrunk to a small reproduction.
import { judge, type Verdict } from './check.ts';
import type { RawClient } from './http.ts';
import type { RequestGenerator } from './requests.ts';
import type { FuzzRequest } from './types.ts';

export interface Finding {
  signature: string;
  count: number;
  request: FuzzRequest;
  verdict: Verdict;
  /** a smaller request that still fails the same way, when shrinking found one */
  reduced?: FuzzRequest;
  reproducible?: boolean;
  /** extra lines for the report (e.g. the requests in flight when the server stopped answering) */
  context?: string[];
}

export interface RunStats {
  sent: number;
  byCode: Map<string, number>;
  byFamily: Map<string, number>;
  slowest: { ms: number; what: string }[];
  elapsedMs: number;
}

export interface RunOptions {
  requests: number;
  concurrency: number;
  timeoutMs: number;
  /** stop generating new requests after this long (the run stays bounded on a slow machine) */
  budgetMs: number;
  onProgress?: (done: number) => void;
  /** called every 250 requests (awaited by one worker while the others go on): re-creates deleted fixtures */
  refresh?: () => Promise<void>;
}

/** the shape of a problem message: quoted, parenthesised and numeric details removed */
const normalise = (s: string) =>
  s
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\([^)]*\)/g, '(…)')
    .replace(/\d+/g, 'N')
    .replace(/: \S+ (ECONNRESET|socket hang up).*/, ': $1')
    .slice(0, 90);

/** findings with one root cause share a signature: the status and the shape of the first problem */
export function signatureOf(v: Verdict): string {
  const problem = v.problems.find((p) => p.startsWith('server error')) ?? v.problems[0] ?? '';
  return `${v.code} ${normalise(problem)}`;
}

const brief = (r: FuzzRequest) =>
  `${r.method} ${r.path.slice(0, 200)} [${r.headers['Content-Type'] ?? ''}] ${r.note.slice(0, 160)}`;

/** whether the server still answers at all (a timed-out request may be slow, or the server may be blocked) */
async function alive(client: RawClient): Promise<boolean> {
  const o = await client.send({ method: 'GET', path: '/readyz', headers: {} }, 5_000);
  return o.kind === 'response' && o.status === 200;
}

export async function runFuzz(
  client: RawClient,
  gen: RequestGenerator,
  opts: RunOptions,
): Promise<{ findings: Finding[]; stats: RunStats; hung: boolean }> {
  const findings = new Map<string, Finding>();
  // the requests around a hang, in the order they were issued, with what became of them
  const inFlight = new Map<FuzzRequest, number>();
  const recent: { n: number; req: FuzzRequest; outcome: string }[] = [];
  let hung = false;
  const stats: RunStats = { sent: 0, byCode: new Map(), byFamily: new Map(), slowest: [], elapsedMs: 0 };
  const start = performance.now();
  let issued = 0;
  let aborted = false;
  const worker = async () => {
    while (!aborted && issued < opts.requests && performance.now() - start < opts.budgetMs) {
      issued++;
      let req: FuzzRequest;
      try {
        req = gen.next();
      } catch (e) {
        aborted = true; // a generator bug: stop every worker, then fail with it
        throw e;
      }
      const n = issued;
      inFlight.set(req, n);
      const outcome = await client.send(req, opts.timeoutMs);
      inFlight.delete(req);
      recent.push({ n, req, outcome: outcome.kind === 'response' ? String(outcome.status) : outcome.kind });
      recent.splice(0, recent.length - 24);
      if (outcome.kind === 'timeout' && !aborted && !(await alive(client))) {
        // The server stopped answering: nothing after this is meaningful. Stop, and list the requests around
        // the moment in issue order; the first one that timed out is the likely culprit.
        aborted = true;
        hung = true;
        const around = [...recent, ...[...inFlight].map(([r, i]) => ({ n: i, req: r, outcome: 'in flight' }))].sort(
          (a, b) => a.n - b.n,
        );
        const first = around.find((a) => a.outcome === 'timeout' || a.outcome === 'in flight') ?? { n, req };
        findings.set('hung', {
          signature: 'hung',
          count: 1,
          request: first.req,
          verdict: {
            problems: [
              'the server stopped answering (/readyz timed out too). The request below is the first without an answer; a write answered just before it can be the cause (work after the response can block the server)',
            ],
            code: 'timeout',
            message: '',
          },
          context: [
            'requests around the hang, in issue order (#, outcome):',
            ...around.map((a) => `  #${a.n} ${a.outcome}: ${brief(a.req)}`),
          ],
        });
        break;
      }
      const v = judge(req.method, req.stream === true, outcome, opts.timeoutMs, req.expect);
      stats.sent++;
      stats.byCode.set(String(v.code), (stats.byCode.get(String(v.code)) ?? 0) + 1);
      const fam = req.family.split(' ')[0]!;
      stats.byFamily.set(fam, (stats.byFamily.get(fam) ?? 0) + 1);
      if (outcome.kind === 'response' && !req.stream) {
        stats.slowest.push({
          ms: outcome.ms,
          what: `${req.method} ${req.path.slice(0, 100)} → ${outcome.status} (${req.note.slice(0, 80)})`,
        });
        stats.slowest.sort((a, b) => b.ms - a.ms).splice(5);
      }
      if (v.problems.length) {
        const sig = signatureOf(v);
        const f = findings.get(sig);
        if (f) f.count++;
        else findings.set(sig, { signature: sig, count: 1, request: req, verdict: v });
      }
      if (stats.sent % 250 === 0) {
        opts.onProgress?.(stats.sent);
        // a refresh that fails (the server is in trouble) must not hide what the fuzz requests found
        if (!aborted) await opts.refresh?.().catch(() => {});
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  stats.elapsedMs = Math.round(performance.now() - start);
  return { findings: [...findings.values()], stats, hung };
}

function sameFailure(a: Verdict, b: Verdict): boolean {
  const key = (v: Verdict) => normalise(v.problems.find((p) => p.startsWith('server error')) ?? v.problems[0] ?? '');
  return b.problems.length > 0 && a.code === b.code && key(a) === key(b);
}

/** Replays a finding alone to confirm it, then greedily drops JSON fields from its body while it still fails. */
export async function confirmAndShrink(
  client: RawClient,
  f: Finding,
  timeoutMs: number,
  maxReplays = 60,
): Promise<void> {
  const replay = async (req: FuzzRequest) =>
    judge(req.method, req.stream === true, await client.send(req, timeoutMs), timeoutMs, req.expect);
  const first = await replay(f.request);
  f.reproducible = sameFailure(f.verdict, first);
  if (!f.reproducible || !f.request.body || f.request.body.length > 64 * 1024) return;
  let value: unknown;
  try {
    value = JSON.parse(f.request.body.toString('utf8'));
  } catch {
    return;
  }
  // deeply nested bodies are their own minimal reproduction (and would overflow this recursion)
  if (depthOf(value) > 64) return;
  let replays = 0;
  let current = value;
  let improved = true;
  while (improved && replays < maxReplays) {
    improved = false;
    for (const candidate of smallerValues(current)) {
      if (++replays > maxReplays) break;
      const req = { ...f.request, body: Buffer.from(JSON.stringify(candidate)) };
      if (sameFailure(f.verdict, await replay(req))) {
        current = candidate;
        f.reduced = req;
        improved = true;
        break;
      }
    }
  }
}

function depthOf(v: unknown, limit = 65): number {
  if (limit === 0 || v === null || typeof v !== 'object') return 0;
  let max = 0;
  for (const c of Object.values(v as object)) max = Math.max(max, depthOf(c, limit - 1));
  return max + 1;
}

/** one-step reductions: drop one key or array item anywhere (shallow positions first) */
function* smallerValues(v: unknown): Generator<unknown> {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield [...v.slice(0, i), ...v.slice(i + 1)];
    for (let i = 0; i < v.length; i++) for (const c of smallerValues(v[i])) yield v.map((x, j) => (j === i ? c : x));
  } else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const { [k]: _dropped, ...rest } = o;
      yield rest;
    }
    for (const k of Object.keys(o)) for (const c of smallerValues(o[k])) yield { ...o, [k]: c };
  }
}

function showBody(body: Buffer | undefined, note: string): string {
  if (!body) return '(no body)';
  const text = body.toString('utf8');
  const printable = /^[\x20-\x7e\n\t]*$/.test(text);
  if (body.length <= 800 && printable) return `${body.length} bytes: ${text}`;
  return `${body.length} bytes (${note || 'generated'}), starting ${JSON.stringify(text.slice(0, 160))}`;
}

/** A finding as a self-contained reproduction. */
export function describeFinding(f: Finding): string {
  const req = f.reduced ?? f.request;
  const headers =
    Object.entries(req.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' | ') || '(none)';
  return [
    `[${f.count}×${f.reproducible === false ? ', did not reproduce alone' : f.reproducible ? ', reproduces alone' : ''}] ${f.verdict.problems.join('; ')}`,
    `  request: ${req.method} ${req.path.length > 300 ? `${req.path.slice(0, 300)}… (${req.path.length} chars)` : req.path}`,
    `  headers: ${headers}${req.chunked ? ' (chunked)' : ''}`,
    `  body: ${showBody(req.body, f.request.note)}`,
    ...(f.reduced
      ? [`  (shrunk from: ${f.request.note.slice(0, 200)})`]
      : f.request.note
        ? [`  generator: ${f.request.note.slice(0, 300)}`]
        : []),
    ...(f.context ?? []).map((l) => `  ${l}`),
  ].join('\n');
}
