// The TCP ports a process listens on, read from /proc (Linux): its socket inodes (/proc/PID/fd) matched
// against the kernel's socket tables, so a security test reaches every port a process opened — including
// ones nobody listed — and learns whether each speaks plain HTTP or TLS.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { exchange, type Target } from './hostile-http.ts';

export interface Listener {
  /** dotted IPv4 or IPv6 text */
  address: string;
  port: number;
}

function hexToAddress(hex: string): string {
  if (hex.length === 8) return [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  // IPv6 in four little-endian 32-bit words
  const words = [0, 1, 2, 3].map((w) =>
    hex
      .slice(w * 8, w * 8 + 8)
      .match(/../g)!
      .reverse()
      .join(''),
  );
  const groups = words.flatMap((w) => [w.slice(0, 4), w.slice(4)]);
  return groups.map((g) => g.replace(/^0+(?=.)/, '')).join(':');
}

/** every TCP socket of `pid` in LISTEN state */
export function listeningPorts(pid: number): Listener[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // the descriptor closed while we looked
    }
  }
  const out: Listener[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A' || !inodes.has(f[9]!)) continue;
      const [addr, port] = f[1]!.split(':');
      out.push({ address: hexToAddress(addr!), port: Number.parseInt(port!, 16) });
    }
  }
  return out.sort((a, b) => a.port - b.port);
}

/** where to connect for a listener (a wildcard address is reached on loopback) and whether it speaks TLS */
export async function probeTarget(l: Listener): Promise<Target> {
  const host =
    l.address === '0.0.0.0' || l.address === '::' || l.address === '0:0:0:0:0:0:0:0' ? '127.0.0.1' : l.address;
  const plain = await exchange({ host, port: l.port }, `GET / HTTP/1.1\r\nHost: ${host}:${l.port}\r\n\r\n`, {
    timeoutMs: 5_000,
  });
  return plain.status !== undefined ? { host, port: l.port } : { host, port: l.port, tls: {} };
}
