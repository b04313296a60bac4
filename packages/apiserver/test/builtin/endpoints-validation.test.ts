// Endpoints addresses as kube-apiserver validates them (ValidateEndpointIP after IsValidIP): the fidelity
// suite's `validation` exchanges compare the same cases with the real server; this table keeps them on the
// embedded backend alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateBuiltin } from '../../src/builtin/validate.ts';
import { endpointIpCauses, validateEndpoints } from '../../src/builtin/validate-endpoints.ts';
import type { ResourceType } from '../../src/resource-types/resource-type.ts';
import type { KubeObject } from '../../src/types.ts';

const LOOPBACK = 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
const LINK_LOCAL = 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
const MULTICAST = 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';

const details = (ip: string) =>
  endpointIpCauses(ip, 'ip').map((c) => c.message!.replace(`Invalid value: ${JSON.stringify(ip)}: `, ''));

describe('Endpoints address validation', () => {
  const table: Array<[string, string[]]> = [
    ['10.244.1.2', []],
    ['8.8.8.8', []],
    ['fd00::5', []],
    ['2001:db8::1', []],
    ['224.0.1.1', []],
    ['127.0.0.1', [LOOPBACK]],
    ['127.121.4.5', [LOOPBACK]],
    ['::1', [LOOPBACK]],
    ['::ffff:127.1.2.3', [LOOPBACK]],
    ['0.0.0.0', ['may not be unspecified (0.0.0.0)']],
    ['::', ['may not be unspecified (::)']],
    ['169.254.169.254', [LINK_LOCAL]],
    ['fe80::1', [LINK_LOCAL]],
    ['febf::1', [LINK_LOCAL]],
    ['fec0::1', []],
    ['224.0.0.251', [MULTICAST]],
    ['ff02::1', [MULTICAST]],
    ['ff12::1', [MULTICAST]],
    ['pod-a', ['must be a valid IP address']],
    ['', ['must be a valid IP address']],
  ];
  for (const [ip, want] of table)
    it(`${ip || '(empty)'}: ${want.join('; ') || 'accepted'}`, () => assert.deepEqual(details(ip), want));

  it('checks ready and not-ready addresses of every subset, with kube field paths; a non-IP gets both of kube causes', () => {
    const ep = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'e' },
      subsets: [
        { addresses: [{ ip: '10.0.0.1' }] },
        { addresses: [{ ip: '10.0.0.2' }, { ip: '127.0.0.1' }], notReadyAddresses: [{ ip: 'x' }] },
      ],
    } as unknown as KubeObject;
    assert.deepEqual(
      validateEndpoints(ep).map((c) => `${c.field}: ${c.message}`),
      [
        `subsets[1].addresses[1].ip: Invalid value: "127.0.0.1": ${LOOPBACK}`,
        'subsets[1].notReadyAddresses[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        'subsets[1].notReadyAddresses[0].ip: Invalid value: "x": must be a valid IP address',
      ],
    );
  });

  it('is the built-in validation of core/v1 Endpoints', () => {
    const rt = { group: '', kind: 'Endpoints' } as ResourceType;
    const ep = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'e' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }] }],
    };
    assert.deepEqual(
      validateBuiltin(rt, ep as unknown as KubeObject, undefined).map((c) => c.field),
      ['subsets[0].addresses[0].ip'],
    );
  });
});
