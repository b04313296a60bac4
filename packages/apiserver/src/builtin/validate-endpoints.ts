// kube's validation of the addresses an Endpoints object publishes (ValidateEndpointIP, also applied to a
// Service's externalIPs): a valid IP that is not unspecified, loopback or link-local, since a proxy sending
// traffic there would reach the node itself. The simulated nodes' pods have loopback IPs, so the simulated
// endpoints controller leaves those out (packages/sim/src/workloads/endpoints.ts), as it must on a real cluster.
import { isIPv4, isIPv6 } from 'node:net';
import { cause, type StatusCause } from '../errors.ts';
import type { KubeObject } from '../types.ts';

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** the 16 bytes of an IPv6 address (Node has validated it) */
function ipv6Bytes(ip: string): number[] {
  const [head = '', tail] = ip.split('::') as [string, string | undefined];
  const groups = (s: string) => (s ? s.split(':') : []);
  const words = (s: string[]) =>
    s.flatMap((g) => {
      if (isIPv4(g)) {
        const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
        return [(a << 8) | b, (c << 8) | d];
      }
      return [Number.parseInt(g, 16)];
    });
  const front = words(groups(head));
  const back = tail === undefined ? [] : words(groups(tail));
  const all = [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}

/** an address as Go's net.IP sees it: 4 bytes for IPv4 and IPv4-mapped IPv6, else 16; undefined if invalid */
function ipBytes(ip: string): number[] | undefined {
  if (isIPv4(ip)) return ip.split('.').map(Number);
  if (!isIPv6(ip)) return undefined;
  const b = ipv6Bytes(ip);
  const mapped = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  return mapped ? b.slice(12) : b;
}

/** the causes kube's ValidateEndpointIP gives for `ip` at `path` */
export function endpointIpCauses(ip: unknown, path: string): StatusCause[] {
  const value = typeof ip === 'string' ? ip : '';
  const invalid = (detail: string) =>
    cause(path, 'FieldValueInvalid', `Invalid value: ${JSON.stringify(value)}: ${detail}`);
  const b = ipBytes(value);
  if (!b) return [invalid('must be a valid IP address')];
  const v4 = b.length === 4;
  const out: StatusCause[] = [];
  if (b.every((x) => x === 0)) out.push(invalid(`may not be unspecified (${value})`));
  if (v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1)
    out.push(invalid('may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80)
    out.push(invalid('may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (v4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02)
    out.push(invalid('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return out;
}

/** kube checks an address is an IP (IsValidIP), then ValidateEndpointIP says so again in its own words */
function endpointAddressCauses(ip: unknown, path: string): StatusCause[] {
  const causes = endpointIpCauses(ip, path);
  if (ipBytes(typeof ip === 'string' ? ip : '')) return causes;
  const value = JSON.stringify(typeof ip === 'string' ? ip : '');
  const detail = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
  return [cause(path, 'FieldValueInvalid', `Invalid value: ${value}: ${detail}`), ...causes];
}

/** every address of an Endpoints object's subsets, ready or not */
export function validateEndpoints(obj: KubeObject): StatusCause[] {
  const subsets = (obj as { subsets?: unknown }).subsets;
  if (!Array.isArray(subsets)) return [];
  return subsets.flatMap((s, i) =>
    (['addresses', 'notReadyAddresses'] as const).flatMap((field) => {
      const list = asObj(s)[field];
      if (!Array.isArray(list)) return [];
      return list.flatMap((a, j) => endpointAddressCauses(asObj(a).ip, `subsets[${i}].${field}[${j}].ip`));
    }),
  );
}
