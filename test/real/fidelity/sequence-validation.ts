// The recorded sequence: built-in validations a client meets on write. Endpoints addresses must be IPs a
// proxy may send traffic to (kube's ValidateEndpointIP): loopback, unspecified and link-local ones are refused.
import { NS } from './sequence-core.ts';
import { http, type Step } from './steps.ts';

const endpoints = `/api/v1/namespaces/${NS}/endpoints`;
const withAddresses = (name: string, ready: string[], notReady: string[] = []) => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name },
  subsets: [
    {
      ...(ready.length ? { addresses: ready.map((ip) => ({ ip })) } : {}),
      ...(notReady.length ? { notReadyAddresses: notReady.map((ip) => ({ ip })) } : {}),
      ports: [{ name: 'http', port: 8000, protocol: 'TCP' }],
    },
  ],
});

export const validationSteps: Step[] = [
  http('validation', 'Endpoints with pod IPs', 'POST', endpoints, withAddresses('ok', ['10.244.1.2'], ['fd00::5']), {
    pick: (b) => b.subsets,
  }),
  http(
    'validation',
    'Endpoints in the loopback range → Invalid',
    'POST',
    endpoints,
    withAddresses('lo', ['127.0.0.1']),
  ),
  http(
    'validation',
    'not-ready Endpoints at ::1 and an IPv4-mapped loopback → Invalid',
    'POST',
    endpoints,
    withAddresses('lo6', [], ['::1', '::ffff:127.1.2.3']),
  ),
  http(
    'validation',
    'Endpoints unspecified, link-local and link-local multicast → Invalid',
    'POST',
    endpoints,
    withAddresses('special', ['0.0.0.0', '169.254.169.254', '224.0.0.251', 'fe80::1', 'ff02::1', '::']),
  ),
  http('validation', 'Endpoints with a name for an IP → Invalid', 'POST', endpoints, withAddresses('name', ['pod-a'])),
  http(
    'validation',
    'an update moving Endpoints to loopback → Invalid',
    'PATCH',
    `${endpoints}/ok`,
    {
      subsets: [{ addresses: [{ ip: '127.0.0.2' }], ports: [{ port: 80 }] }],
    },
    { contentType: 'application/merge-patch+json' },
  ),
];
