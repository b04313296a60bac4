// The apiserver bench's HTTPS client (bench/apiserver.ts): a keep-alive agent sized to the bench's
// concurrency, bodies sent as prebuilt strings, with a bearer token against the server under test.

import { Agent, request } from 'node:https';

export interface Target {
  port: number;
  caPem: string;
  token: string;
}

export class Client {
  readonly agent: Agent;

  constructor(
    readonly t: Target,
    sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, ca: t.caPem });
  }

  call(
    method: string,
    path: string,
    body?: string,
    contentType = 'application/json',
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {
        Authorization: `Bearer ${this.t.token}`,
        Accept: 'application/json',
      };
      if (body !== undefined)
        Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
      const req = request({ host: '127.0.0.1', port: this.t.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async must(method: string, path: string, body?: unknown): Promise<unknown> {
    const r = await this.call(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 500)}`);
    return JSON.parse(r.body);
  }
}
