// Kubernetes' CEL IP and CIDR libraries (ip(), isIP(), ip.isCanonical(), cidr(), isCIDR() and their methods),
// parsed the way Go's net/netip does: strict dotted quads (no leading zeros), RFC 4291 IPv6 text, no zones
// and no IPv4-mapped IPv6 addresses (kube rejects both); printed in RFC 5952 canonical form.

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';

export class CelIP {
  constructor(readonly bytes: Uint8Array) {}

  family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }

  equals(other: unknown): boolean {
    return other instanceof CelIP && Buffer.from(this.bytes).equals(Buffer.from(other.bytes));
  }

  isUnspecified(): boolean {
    return this.bytes.every((b) => b === 0);
  }

  isLoopback(): boolean {
    const b = this.bytes;
    return b.length === 4 ? b[0] === 127 : b.every((x, i) => x === (i === 15 ? 1 : 0));
  }

  isMulticast(): boolean {
    const b = this.bytes;
    return b.length === 4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    const b = this.bytes;
    return b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
  }

  isLinkLocalUnicast(): boolean {
    const b = this.bytes;
    return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
  }

  isGlobalUnicast(): boolean {
    const b = this.bytes;
    if (b.length === 4 && b.every((x) => x === 255)) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }

  toString(): string {
    const b = this.bytes;
    if (b.length === 4) return b.join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
    // RFC 5952: compress the longest run (first on ties) of two or more zero groups
    let bestStart = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
      i = j;
    }
    const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
    if (bestStart < 0) return hex(groups);
    return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
  }
}

export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly prefixLength: number,
  ) {}

  masked(): CelCIDR {
    const out = new Uint8Array(this.ip.bytes);
    for (let i = 0; i < out.length; i++) {
      const keep = Math.max(0, Math.min(8, this.prefixLength - i * 8));
      out[i]! &= (0xff << (8 - keep)) & 0xff;
    }
    return new CelCIDR(new CelIP(out), this.prefixLength);
  }

  containsIP(ip: CelIP): boolean {
    if (ip.family() !== this.ip.family()) return false;
    return new CelCIDR(ip, this.prefixLength).masked().ip.equals(this.masked().ip);
  }

  containsCIDR(other: CelCIDR): boolean {
    return other.prefixLength >= this.prefixLength && this.containsIP(other.ip);
  }

  equals(other: unknown): boolean {
    return other instanceof CelCIDR && other.prefixLength === this.prefixLength && other.ip.equals(this.ip);
  }

  toString(): string {
    return `${this.ip}/${this.prefixLength}`;
  }
}

function parseIPv4(s: string): Uint8Array | string {
  const parts = s.split('.');
  if (parts.length !== 4) return 'IPv4 address too short or too long';
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p)) return 'unexpected character in IPv4 field';
    if (p.length > 1 && p[0] === '0') return 'IPv4 field has octet with leading zero';
    const v = Number(p);
    if (v > 255) return 'IPv4 field has value >255';
    out[i] = v;
  }
  return out;
}

function parseIPv6(s: string): Uint8Array | string {
  let head = s;
  let v4tail: Uint8Array | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (typeof v4 === 'string') return v4;
    v4tail = v4;
    head = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return 'multiple :: in address';
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  const total = left.length + right.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return 'address string too short or too long';
  const groups = [...left, ...Array<string>(8 - total).fill('0'), ...right];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = groups[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g))
      return 'each colon-separated field must have at least one and at most 4 hex digits';
    const v = Number.parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  }
  if (v4tail) out.set(v4tail, 12);
  return out;
}

/** netip.ParseAddr plus kube's extra rules; returns the error text on failure */
export function parseIP(raw: string): CelIP | string {
  if (raw.includes('%')) return `IP address ${JSON.stringify(raw)} with zone value is not allowed`;
  const bytes = raw.includes(':') ? parseIPv6(raw) : parseIPv4(raw);
  if (typeof bytes === 'string')
    return `IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): ${bytes}`;
  if (bytes.length === 16 && bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`;
  }
  return new CelIP(bytes);
}

export function parseCIDR(raw: string): CelCIDR | string {
  const slash = raw.lastIndexOf('/');
  if (slash < 0)
    return `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): no '/'`;
  const ip = parseIP(raw.slice(0, slash));
  if (typeof ip === 'string') return ip;
  const bits = raw.slice(slash + 1);
  const max = ip.family() === 4 ? 32 : 128;
  if (!/^(0|[1-9]\d{0,2})$/.test(bits) || Number(bits) > max) {
    return `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): bad bits after slash: ${JSON.stringify(bits)}`;
  }
  return new CelCIDR(ip, Number(bits));
}

function ipOrThrow(raw: string): CelIP {
  const ip = parseIP(raw);
  if (typeof ip === 'string') throw new EvaluationError(ip);
  return ip;
}

function cidrOrThrow(raw: string): CelCIDR {
  const cidr = parseCIDR(raw);
  if (typeof cidr === 'string') throw new EvaluationError(cidr);
  return cidr;
}

/** receiver for `ip.isCanonical(...)`, where `ip` is a namespace rather than the ip() function */
class CelIPNamespace {}

export function registerNetLibrary(env: Environment): void {
  env.registerType('net.IP', CelIP);
  env.registerType('net.CIDR', CelCIDR);
  env.registerType('CelIPNamespace', CelIPNamespace);
  env.registerConstant('ip', 'CelIPNamespace', new CelIPNamespace());

  env.registerFunction('ip(string): net.IP', ipOrThrow);
  env.registerFunction('isIP(string): bool', (s: string) => typeof parseIP(s) !== 'string');
  env.registerFunction(
    'CelIPNamespace.isCanonical(string): bool',
    (_: unknown, s: string) => ipOrThrow(s).toString() === s,
  );
  env.registerFunction('string(net.IP): string', (ip: CelIP) => ip.toString());
  env.registerFunction('net.IP.family(): int', (ip: CelIP) => BigInt(ip.family()));
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: CelIP) => ip.isUnspecified());
  env.registerFunction('net.IP.isLoopback(): bool', (ip: CelIP) => ip.isLoopback());
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: CelIP) => ip.isLinkLocalMulticast());
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: CelIP) => ip.isLinkLocalUnicast());
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: CelIP) => ip.isGlobalUnicast());
  env.registerOperator('net.IP == net.IP', (a: CelIP, b: CelIP) => a.equals(b));

  env.registerFunction('cidr(string): net.CIDR', cidrOrThrow);
  env.registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string');
  env.registerFunction('string(net.CIDR): string', (c: CelCIDR) => c.toString());
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, ip: CelIP) => c.containsIP(ip));
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) => c.containsIP(ipOrThrow(s)));
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCIDR, o: CelCIDR) => c.containsCIDR(o));
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) =>
    c.containsCIDR(cidrOrThrow(s)),
  );
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CelCIDR) => c.ip);
  env.registerFunction('net.CIDR.masked(): net.CIDR', (c: CelCIDR) => c.masked());
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.prefixLength));
  env.registerOperator('net.CIDR == net.CIDR', (a: CelCIDR, b: CelCIDR) => a.equals(b));
}
