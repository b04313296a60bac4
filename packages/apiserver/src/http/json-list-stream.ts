// A JSON list written in pieces as its items' shared texts are joined (http/object-json.ts), instead of one
// string of the whole list: a list of thousands of objects is megabytes, and written at once it holds the
// only thread for its whole encoding, delays every watch event and write queued behind it, and keeps the
// string and its bytes in memory until the client has read them all. Between pieces the event loop runs
// (other requests, watch fan-outs), and a piece waits for the socket to drain when the client reads slower.
// The bytes are JSON.stringify's; the answer is chunked, as kube-apiserver's is for a body over 2 KiB.
import type { ServerResponse } from 'node:http';
import { objectJson } from './object-json.ts';

/** items per piece: ~256 KiB of 2 KiB objects, about a millisecond of work */
const PIECE_ITEMS = 128;

/** Writes `{...head, [key]: items}` as JSON to `res` (status 200), piece by piece. */
export function streamJsonList(
  res: ServerResponse,
  head: Record<string, unknown>,
  key: string,
  items: readonly object[],
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...headers });
  const open = `${JSON.stringify(head).slice(0, -1)},${JSON.stringify(key)}:[`;
  let next = 0;
  const piece = (): void => {
    if (res.destroyed) return;
    const end = Math.min(items.length, next + PIECE_ITEMS);
    const parts = new Array<string>(end - next);
    for (let i = next; i < end; i++) parts[i - next] = objectJson(items[i]!);
    const text = `${next === 0 ? open : ','}${parts.join(',')}`;
    next = end;
    if (next >= items.length) {
      res.end(`${text}]}`);
      return;
    }
    if (res.write(text)) setImmediate(piece);
    else res.once('drain', piece);
  };
  piece();
}
