// The malformed traffic every listening port must survive (docs/security.md): odd and null Origins,
// missing, duplicated and garbage Host headers, bad and absent Content-Types, invalid and deeply nested
// JSON, bodies over the limit (declared and streamed), truncated and broken chunked bodies, request
// smuggling framings, header floods, request targets that are not URLs, unknown methods, random bytes, and
// seeded random mutations of a good request. `attack` sends each case and then checks that the server still
// answers a good request; slow partial headers are a separate, bounded check (`slowHeaders`).
import { prng } from '@modelplane/apiserver/testing';
import { type ExchangeOutcome, exchange, type Piece, type Target } from './hostile-http.ts';

export interface HostileCase {
  name: string;
  pieces: Piece[];
  /** end our side after the last piece (a client that gives up mid-request) */
  halfClose?: boolean;
  /** the answer this case must get, when it is known exactly */
  expect?: number[];
}

export interface SurfaceSpec {
  /** the Host header a good request carries */
  host: string;
  /** a path the server answers (any status) */
  path: string;
  /** the largest body it accepts (413 past it); undefined when not known */
  maxBodyBytes?: number;
  /** extra headers every case carries (e.g. a bearer token), so checks go past authentication */
  headers?: Record<string, string>;
  seed: number;
  /** how many seeded random mutations of a good request to add */
  mutations: number;
}

const CRLF = '\r\n';

function head(method: string, target: string, headers: Array<[string, string]>, version = 'HTTP/1.1'): string {
  return `${method} ${target} ${version}${CRLF}${headers.map(([k, v]) => `${k}: ${v}${CRLF}`).join('')}${CRLF}`;
}

function withBody(s: SurfaceSpec, method: string, body: string | Buffer, extra: Array<[string, string]>): Piece[] {
  const len = Buffer.byteLength(body);
  return [head(method, s.path, [['Host', s.host], ...auth(s), ['Content-Length', String(len)], ...extra]), body];
}

const auth = (s: SurfaceSpec): Array<[string, string]> => Object.entries(s.headers ?? {});

function chunked(s: SurfaceSpec, chunks: Piece[], extra: Array<[string, string]> = []): Piece[] {
  return [head('POST', s.path, [['Host', s.host], ...auth(s), ['Transfer-Encoding', 'chunked'], ...extra]), ...chunks];
}

function bodyCases(s: SurfaceSpec): HostileCase[] {
  const json: Array<[string, string]> = [['Content-Type', 'application/json']];
  const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
  const deepObject = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
  const cases: HostileCase[] = [
    { name: 'invalid JSON', pieces: withBody(s, 'POST', '{"a":', json) },
    { name: 'JSON that is not an object', pieces: withBody(s, 'POST', '[1,2,3]', json) },
    { name: 'deeply nested arrays', pieces: withBody(s, 'POST', deep, json) },
    { name: 'deeply nested objects', pieces: withBody(s, 'POST', deepObject, json) },
    { name: '__proto__ fields', pieces: withBody(s, 'POST', '{"__proto__":{"admin":true},"constructor":1}', json) },
    { name: 'invalid UTF-8', pieces: withBody(s, 'POST', Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]), json) },
    { name: 'no Content-Type', pieces: withBody(s, 'POST', '{}', []) },
    {
      name: 'form Content-Type',
      pieces: withBody(s, 'POST', 'a=b', [['Content-Type', 'application/x-www-form-urlencoded']]),
    },
    { name: 'garbage Content-Type', pieces: withBody(s, 'POST', '{}', [['Content-Type', ';;;/\u0001==']]) },
    {
      name: 'JSON in UTF-16',
      pieces: withBody(s, 'POST', Buffer.from('{}', 'utf16le'), [['Content-Type', 'application/json; charset=utf-16']]),
    },
    { name: 'truncated chunked body', pieces: chunked(s, ['10\r\n{"a":']), halfClose: true },
    { name: 'chunk size that is not hex', pieces: chunked(s, ['zz\r\nabc\r\n0\r\n\r\n']), expect: [400] },
    { name: 'chunk size past 2^64', pieces: chunked(s, ['ffffffffffffffffff\r\n']), expect: [400] },
    {
      name: 'Content-Length and Transfer-Encoding (smuggling)',
      pieces: chunked(s, ['0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n'], [['Content-Length', '5']]),
      expect: [400],
    },
    {
      name: 'two different Content-Lengths',
      pieces: [
        head('POST', s.path, [
          ['Host', s.host],
          ['Content-Length', '1'],
          ['Content-Length', '2'],
        ]),
        'ab',
      ],
      expect: [400],
    },
    {
      name: 'negative Content-Length',
      pieces: [
        head('POST', s.path, [
          ['Host', s.host],
          ['Content-Length', '-1'],
        ]),
      ],
      expect: [400],
    },
    {
      name: 'body shorter than its Content-Length',
      pieces: withBody(s, 'POST', '{}', json).slice(0, 1).concat(['{']),
      halfClose: true,
    },
  ];
  if (s.maxBodyBytes !== undefined) {
    const over = s.maxBodyBytes + 1;
    cases.push(
      {
        name: 'declared body over the limit',
        pieces: [
          head('POST', s.path, [
            ['Host', s.host],
            ...auth(s),
            ['Content-Type', 'application/json'],
            ['Content-Length', String(over)],
          ]),
        ],
        expect: [413],
      },
      {
        name: 'streamed body over the limit',
        pieces: chunked(s, [`${over.toString(16)}\r\n`, Buffer.alloc(over, 0x61), '\r\n0\r\n\r\n'], json),
        expect: [413],
      },
      {
        name: 'Expect: 100-continue over the limit',
        pieces: [
          head('POST', s.path, [
            ['Host', s.host],
            ...auth(s),
            ['Expect', '100-continue'],
            ['Content-Length', String(over)],
          ]),
        ],
        expect: [413],
      },
    );
  }
  return cases;
}

function headerCases(s: SurfaceSpec): HostileCase[] {
  const get = (extra: Array<[string, string]>, target = s.path): Piece[] => [
    head('GET', target, [['Host', s.host], ...auth(s), ...extra]),
  ];
  const flood: Array<[string, string]> = Array.from({ length: 3000 }, (_, i) => [`X-Flood-${i}`, 'x']);
  return [
    { name: 'Origin: null', pieces: get([['Origin', 'null']]) },
    {
      name: 'Origin: null on a write',
      pieces: withBody(s, 'POST', '{}', [
        ['Origin', 'null'],
        ['Content-Type', 'application/json'],
      ]),
    },
    {
      name: 'Origin that is not a URL',
      pieces: withBody(s, 'POST', '{}', [
        ['Origin', 'http://['],
        ['Content-Type', 'application/json'],
      ]),
    },
    {
      name: 'foreign Origin',
      pieces: withBody(s, 'POST', '{}', [
        ['Origin', 'https://evil.example'],
        ['Content-Type', 'application/json'],
      ]),
    },
    { name: 'huge Origin', pieces: get([['Origin', `http://${'a'.repeat(8000)}.example`]]) },
    {
      name: 'two Origins',
      pieces: get([
        ['Origin', 'null'],
        ['Origin', 'http://x'],
      ]),
    },
    { name: 'no Host', pieces: [head('GET', s.path, auth(s))], expect: [400] },
    { name: 'two Hosts', pieces: [head('GET', s.path, [['Host', s.host], ['Host', 'evil.example'], ...auth(s)])] },
    { name: 'garbage Host', pieces: [head('GET', s.path, [['Host', '[:::]:x@/\\'], ...auth(s)])] },
    { name: 'empty Host', pieces: [head('GET', s.path, [['Host', ''], ...auth(s)])] },
    { name: 'HTTP/1.0 without Host', pieces: [head('GET', s.path, auth(s), 'HTTP/1.0')] },
    { name: 'header flood (count)', pieces: get(flood) },
    { name: 'one huge header', pieces: get([['X-Big', 'a'.repeat(64 * 1024)]]), expect: [431] },
    { name: 'huge URL', pieces: get([], `${s.path}?${'a'.repeat(64 * 1024)}`), expect: [431, 414] },
    {
      name: 'header without a colon',
      pieces: [`GET ${s.path} HTTP/1.1${CRLF}Host: ${s.host}${CRLF}broken header${CRLF}${CRLF}`],
      expect: [400],
    },
    {
      name: 'NUL in a header value',
      pieces: [`GET ${s.path} HTTP/1.1${CRLF}Host: ${s.host}${CRLF}X-A: a\u0000b${CRLF}${CRLF}`],
      expect: [400],
    },
    { name: 'bare LF line endings', pieces: [`GET ${s.path} HTTP/1.1\nHost: ${s.host}\n\n`] },
    { name: 'garbage cookie', pieces: get([['Cookie', '%E0%A4%A=%;;;=%zz; modelplane_dashboard_token=%E0%A4%A']]) },
    {
      name: 'garbage Authorization',
      pieces: get([
        ['Authorization', 'Bearer \u00ff\u00fe'],
        ['Authorization', 'Basic %%%'],
      ]),
    },
    {
      name: 'WebSocket upgrade',
      pieces: get([
        ['Connection', 'Upgrade'],
        ['Upgrade', 'websocket'],
        ['Sec-WebSocket-Key', 'x'],
        ['Sec-WebSocket-Version', '13'],
      ]),
    },
    {
      name: 'h2c upgrade',
      pieces: get([
        ['Connection', 'Upgrade, HTTP2-Settings'],
        ['Upgrade', 'h2c'],
        ['HTTP2-Settings', 'AAMAAABkAAQAoAAAAAIAAAAA'],
      ]),
    },
  ];
}

function targetCases(s: SurfaceSpec): HostileCase[] {
  const target = (t: string, method = 'GET'): Piece[] => [head(method, t, [['Host', s.host], ...auth(s)])];
  return [
    { name: 'target http://[', pieces: target('http://[') },
    { name: 'target *', pieces: target('*') },
    { name: 'OPTIONS *', pieces: target('*', 'OPTIONS') },
    { name: 'target //[', pieces: target('//[') },
    { name: 'target with bad percent-encoding', pieces: target('/%E0%A4%A/%zz') },
    { name: 'target with an encoded NUL', pieces: target('/%00/..%2f..%2fetc/passwd') },
    { name: 'target with a port out of range', pieces: target('http://x:99999/') },
    { name: 'CONNECT', pieces: target('127.0.0.1:1', 'CONNECT') },
    { name: 'unknown method', pieces: target(s.path, 'BREW'), expect: [400] },
    { name: 'TRACE', pieces: target(s.path, 'TRACE') },
    {
      name: 'HTTP/2 preface',
      pieces: ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0000\u0004\u0000\u0000\u0000\u0000\u0000'],
    },
    { name: 'HTTP/9.9', pieces: [head('GET', s.path, [['Host', s.host]], 'HTTP/9.9')] },
    { name: 'TLS ClientHello on a plain port', pieces: [Buffer.from('16030100a5010000a103035c', 'hex')] },
  ];
}

/** a good request with one to three random byte-level edits: flips, inserted CR/LF/NUL/colons, cuts, repeats */
function mutationCases(s: SurfaceSpec): HostileCase[] {
  const next = prng(s.seed);
  const int = (n: number) => Math.floor(next() * n);
  const good = Buffer.from(
    head('POST', s.path, [
      ['Host', s.host],
      ...auth(s),
      ['Content-Type', 'application/json'],
      ['Content-Length', '2'],
    ]) + '{}',
  );
  const specials = [0x0d, 0x0a, 0x00, 0x3a, 0x20, 0xff, 0x25, 0x7b];
  const cases: HostileCase[] = [];
  for (let n = 0; n < s.mutations; n++) {
    let b = Buffer.from(good);
    const edits = 1 + int(3);
    for (let e = 0; e < edits; e++) {
      const at = int(b.length);
      const kind = int(4);
      if (kind === 0) b[at] = int(256);
      else if (kind === 1)
        b = Buffer.concat([b.subarray(0, at), Buffer.from([specials[int(specials.length)]!]), b.subarray(at)]);
      else if (kind === 2) b = b.subarray(0, Math.max(1, at));
      else b = Buffer.concat([b.subarray(0, at), b.subarray(at, at + 1 + int(40)), b.subarray(at)]);
    }
    cases.push({ name: `mutation ${n} (seed ${s.seed})`, pieces: [b], halfClose: true });
  }
  cases.push({
    name: `random bytes (seed ${s.seed})`,
    pieces: [Buffer.from(Array.from({ length: 512 }, () => int(256)))],
    halfClose: true,
  });
  return cases;
}

export function hostileCases(s: SurfaceSpec): HostileCase[] {
  return [...headerCases(s), ...targetCases(s), ...bodyCases(s), ...mutationCases(s)];
}

/**
 * What is wrong with an outcome: no answer and no close in time, a 5xx, or (when `strict`) not the answer the
 * case must get. Strict suits a server whose first decision is the request's framing (ours, behind
 * @modelplane/runtime/serve); an API server may decide authentication or the route first.
 */
export function judge(
  c: HostileCase,
  o: ExchangeOutcome,
  opts: { allowed5xx?: readonly number[]; strict?: boolean } = {},
): string | undefined {
  if (o.silent) return `${c.name}: no answer and no close within ${o.ms} ms`;
  if (o.status !== undefined && o.status >= 500 && !(opts.allowed5xx ?? []).includes(o.status))
    return `${c.name}: answered ${o.status}: ${o.head.split('\r\n\r\n')[1]?.slice(0, 200) ?? ''}`;
  if (!opts.strict) return undefined;
  if (c.expect && o.status !== undefined && !c.expect.includes(o.status))
    return `${c.name}: answered ${o.status}, expected ${c.expect.join(' or ')}`;
  if (c.expect && o.status === undefined && !c.expect.includes(400))
    return `${c.name}: closed without an answer, expected ${c.expect.join(' or ')}`;
  return undefined;
}

export interface AttackReport {
  problems: string[];
  /** status (or "closed") → count */
  outcomes: Map<string, number>;
}

/** sends every case, then after each checks `stillServing` (a good request, the process alive) */
export async function attack(
  target: Target,
  cases: readonly HostileCase[],
  stillServing: () => Promise<string | undefined>,
  opts: { allowed5xx?: readonly number[]; strict?: boolean; timeoutMs?: number } = {},
): Promise<AttackReport> {
  const problems: string[] = [];
  const outcomes = new Map<string, number>();
  for (const c of cases) {
    const o = await exchange(target, c.pieces, {
      timeoutMs: opts.timeoutMs ?? 15_000,
      ...(c.halfClose ? { halfClose: true } : {}),
    });
    const key = o.status !== undefined ? String(o.status) : o.silent ? 'silent' : 'closed';
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    const wrong = judge(c, o, opts);
    if (wrong) problems.push(wrong);
    const down = await stillServing();
    if (down) {
      problems.push(`after "${c.name}": ${down}`);
      break;
    }
  }
  return { problems, outcomes };
}

/**
 * Slow-loris: `connections` clients each send a partial header block and then a header line every second,
 * never finishing. Meanwhile the server must keep answering; each slow connection must be cut (a 408 or a
 * close) within `deadlineMs`.
 */
export async function slowHeaders(
  target: Target,
  s: SurfaceSpec,
  deadlineMs: number,
  stillServing: () => Promise<string | undefined>,
  connections = 4,
): Promise<string[]> {
  const trickle: Piece[] = [`GET ${s.path} HTTP/1.1${CRLF}Host: ${s.host}${CRLF}`];
  for (let i = 0; i * 1000 < deadlineMs + 5_000; i++) trickle.push({ pauseMs: 1000 }, `X-Slow-${i}: ${i}${CRLF}`);
  const slow = Array.from({ length: connections }, () => exchange(target, trickle, { timeoutMs: deadlineMs }));
  const during = await stillServing();
  const outcomes = await Promise.all(slow);
  const problems = outcomes.filter((o) => o.silent).map((o) => `a slow header block was still open after ${o.ms} ms`);
  if (during) problems.push(`while slow clients held connections: ${during}`);
  return problems;
}
