// The error boundary every modelplane HTTP server shares (serveGuarded): a handler that throws or rejects
// answers 500 and the process lives on; a target that is not a URL is a 400 before the handler runs; a body
// past the limit is a 413 whether declared or streamed, and the handler never sees it; a client that leaves
// mid-body reaches no handler; JSON that is invalid or nests too deep is a 400; a slow header block is cut.
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpError, MAX_JSON_DEPTH, parseJsonBody, serveGuarded } from '../src/serve.ts';

const LIMIT = 1024;

function raw(port: number, text: string, opts: { end?: boolean; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = connect(port, '127.0.0.1', () => (opts.end ? s.end(text) : s.write(text)));
    s.on('data', (d) => (got += d));
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
    setTimeout(() => {
      s.destroy();
      resolve(got);
    }, opts.timeoutMs ?? 5_000);
  });
}

function post(port: number, path: string, body: string, chunked = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('serveGuarded: the error boundary of every server', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];
  const failures: unknown[] = [];

  before(async () => {
    server = serveGuarded(
      createServer(),
      { name: 'the test server', maxBodyBytes: LIMIT, headersTimeoutMs: 1_000, onError: (e) => failures.push(e) },
      async (_req, res, { url, body }) => {
        seen.push(url.pathname);
        if (url.pathname === '/throw') throw new Error('boom');
        if (url.pathname === '/reject') return Promise.reject(new TypeError('async boom'));
        if (url.pathname === '/teapot') throw new HttpError(418, 'short and stout');
        if (url.pathname === '/json') return void res.end(JSON.stringify(parseJsonBody(body)));
        res.end(`ok ${body.length}`);
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );

  it('a throwing or rejecting handler answers 500 and the server goes on', async () => {
    for (const path of ['/throw', '/reject']) {
      const r = await post(port, path, '');
      assert.equal(r.status, 500);
      assert.match(JSON.parse(r.body).error, /the test server failed to answer: (async )?boom/);
    }
    assert.equal(failures.length, 2, 'onError heard both');
    assert.equal((await post(port, '/teapot', '')).status, 418);
    assert.equal((await post(port, '/ok', 'abc')).body, 'ok 3');
  });

  it('a target that is not a URL path is a 400 and reaches no handler', async () => {
    const before = seen.length;
    for (const target of ['http://[', '*', 'http://x:99999/', 'relative'])
      assert.match(await raw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`), /^HTTP\/1\.1 400 /, target);
    assert.equal(seen.length, before);
  });

  it('a body past the limit is a 413, declared or streamed, and reaches no handler', async () => {
    const before = seen.length;
    const big = 'a'.repeat(LIMIT + 1);
    for (const chunked of [false, true]) {
      const r = await post(port, '/ok', big, chunked);
      assert.equal(r.status, 413, `chunked=${chunked}`);
      assert.match(JSON.parse(r.body).error, new RegExp(`limit of ${LIMIT} bytes`));
    }
    assert.equal(seen.length, before);
    assert.equal((await post(port, '/ok', 'a'.repeat(LIMIT))).body, `ok ${LIMIT}`, 'exactly the limit is fine');
  });

  it('Expect: 100-continue past the limit gets the 413 and no invitation to send; within it, 100 then the answer', async () => {
    const before = seen.length;
    const over = await raw(
      port,
      `POST /ok HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`,
      { timeoutMs: 2_000 },
    );
    assert.match(over, /^HTTP\/1\.1 413 /);
    assert.doesNotMatch(over, /100 Continue/);
    assert.equal(seen.length, before);
    const within = await raw(
      port,
      'POST /ok HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
      { timeoutMs: 2_000 },
    );
    assert.match(within, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    assert.match(within, /ok 3$/);
  });

  it('a client that leaves mid-body reaches no handler', async () => {
    const before = seen.length;
    await raw(port, 'POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc', {
      end: true,
      timeoutMs: 2_000,
    });
    await raw(port, 'POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc', { end: true, timeoutMs: 2_000 });
    assert.equal(seen.length, before);
    assert.equal((await post(port, '/ok', '')).status, 200);
  });

  it(`JSON that is invalid, empty or deeper than ${MAX_JSON_DEPTH} levels is a 400 naming the problem`, async () => {
    for (const [body, message] of [
      ['{', /not valid JSON/],
      ['', /empty/],
      [`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`, /deeper than 100/],
      [`{"a":"${'['.repeat(500)}"}`, null],
    ] as const) {
      const r = await post(port, '/json', body);
      if (message === null) assert.equal(r.status, 200, 'brackets inside a string do not count');
      else {
        assert.equal(r.status, 400, body.slice(0, 20));
        assert.match(JSON.parse(r.body).error, message);
      }
    }
  });

  it('a header block that never ends is cut within its deadline', async () => {
    const started = Date.now();
    const got = await raw(port, 'GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n', { timeoutMs: 8_000 });
    assert.ok(Date.now() - started < 7_500, `cut after ${Date.now() - started} ms`);
    assert.ok(got === '' || /^HTTP\/1\.1 408 /.test(got), got);
  });

  it('connections past the limit are closed on arrival; the server serves again once they go', async () => {
    const small = serveGuarded(
      createServer(),
      { name: 'small', maxBodyBytes: 16, maxConnections: 3 },
      (_req, res) => void res.end('ok'),
    );
    await new Promise<void>((r) => small.listen(0, '127.0.0.1', r));
    const smallPort = (small.address() as { port: number }).port;
    const held = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<ReturnType<typeof connect>>((r) => {
            const s = connect(smallPort, '127.0.0.1', () => r(s));
          }),
      ),
    );
    try {
      // the server counts a connection once it accepted it: wait until it holds all three
      while ((await new Promise<number>((r) => small.getConnections((_e, n) => r(n)))) < 3)
        await new Promise((r) => setTimeout(r, 10));
      assert.equal(
        await raw(smallPort, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { timeoutMs: 3_000 }),
        '',
        'the fourth is closed unanswered',
      );
    } finally {
      for (const s of held) s.destroy();
    }
    while ((await new Promise<number>((r) => small.getConnections((_e, n) => r(n)))) > 0)
      await new Promise((r) => setTimeout(r, 10));
    assert.match(await raw(smallPort, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), /^HTTP\/1\.1 200 /);
    await new Promise<void>((r) => small.close(() => r()));
  });
});
