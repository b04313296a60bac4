// A JSON list written in pieces: the bytes are JSON.stringify's, chunked, and a list the client does not
// read is not encoded ahead of it (the server waits for the socket to drain), while other requests are served.
import assert from 'node:assert/strict';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { streamJsonList } from '../../src/http/json-list-stream.ts';

const item = (i: number) =>
  Object.freeze({ kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(2000), i: `é${i}` } });
const head = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42' } };
const lists: Record<string, object[]> = {
  '/big': Array.from({ length: 3000 }, (_, i) => item(i)),
  '/one': [item(0)],
  '/none': [],
  // 40 MB: more than the kernel's socket buffers take
  '/huge': Array.from({ length: 20_000 }, (_, i) => item(i)),
};

describe('streamed JSON lists', () => {
  let server: Server;
  let port: number;
  let huge: ServerResponse | undefined;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ping') res.end('pong');
      else streamJsonList(res, head, 'items', lists[req.url!]!);
      if (req.url === '/huge') huge = res;
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((res) => server.close(() => res())));

  const fetchBody = (path: string) =>
    new Promise<{ res: IncomingMessage; body: string }>((resolve, reject) =>
      get({ port, host: '127.0.0.1', path }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ res, body: Buffer.concat(chunks).toString('utf8') }));
      }).on('error', reject),
    );

  for (const path of ['/big', '/one', '/none'])
    it(`${path}: the bytes of JSON.stringify({ ...head, items }), chunked`, async () => {
      const { res, body } = await fetchBody(path);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['transfer-encoding'], 'chunked');
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(body, JSON.stringify({ ...head, items: lists[path] }));
    });

  it('encodes no further than the client reads, and answers other requests meanwhile', async () => {
    const total = Buffer.byteLength(JSON.stringify({ ...head, items: lists['/huge'] }));
    let reader!: IncomingMessage;
    await new Promise<void>((resolve, reject) =>
      get({ port, host: '127.0.0.1', path: '/huge' }, (res) => {
        res.pause();
        reader = res;
        resolve();
      }).on('error', reject),
    );
    // the other request is answered, and by then the paused list has stopped on a full socket
    assert.equal((await fetchBody('/ping')).body, 'pong');
    for (const deadline = Date.now() + 10_000; !huge?.writableNeedDrain && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 5));
    const produced = huge!.socket!.bytesWritten + huge!.writableLength;
    assert.ok(produced < total / 2, `${produced} of ${total} bytes encoded for a client that read none`);
    const body = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      reader.on('data', (c: Buffer) => chunks.push(c));
      reader.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      reader.resume();
    });
    assert.equal(Buffer.byteLength(body), total);
  });
});
