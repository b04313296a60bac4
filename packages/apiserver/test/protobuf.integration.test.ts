// The Kubernetes protobuf request-body decoder: bodies recorded from the real kubectl 1.32 (fixtures), crafted
// bodies for presence/omitempty rules, special types and malformed input, and a live run when kubectl exists.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatGoDuration as goDuration } from '@modelplane/apimachinery';
import { partsOf } from '../src/handle.ts';
import { decodeMessage } from '../src/http/protobuf/decode-message.ts';
import { decodeKubeProtobuf, isKubeProtobuf } from '../src/http/protobuf/index.ts';
import { API_PACKAGES, KINDS } from '../src/http/protobuf/message-names.ts';
import { MESSAGES } from '../src/http/protobuf/messages.ts';
import { messageDef } from '../src/http/protobuf/schema.ts';
import { WireReader } from '../src/http/protobuf/wire.ts';
import { type ApiServer, startApiServer } from '../src/index.ts';
import { KUBECTL, runKubectl } from '../src/testing/index.ts';

type Obj = Record<string, any>;

// ---- a minimal protobuf writer for crafted bodies ----
function varint(v: number | bigint): Buffer {
  let n = BigInt.asUintN(64, BigInt(v));
  const out: number[] = [];
  do {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    out.push(n ? b | 0x80 : b);
  } while (n);
  return Buffer.from(out);
}
const key = (field: number, wire: number) => varint(field * 8 + wire);
const int = (field: number, v: number | bigint) => Buffer.concat([key(field, 0), varint(v)]);
const bytes = (field: number, v: string | Buffer) => {
  const b = typeof v === 'string' ? Buffer.from(v) : v;
  return Buffer.concat([key(field, 2), varint(b.length), b]);
};
const msg = (field: number, ...parts: Buffer[]) => bytes(field, Buffer.concat(parts));
const entry = (field: number, k: string, v?: Buffer) => msg(field, bytes(1, k), ...(v ? [v] : []));
const MAGIC = Buffer.from('k8s\0', 'latin1');
const envelope = (apiVersion: string, kind: string, ...object: Buffer[]) =>
  Buffer.concat([MAGIC, msg(1, bytes(1, apiVersion), bytes(2, kind)), msg(2, ...object), bytes(3, ''), bytes(4, '')]);
const meta = (name: string) => msg(1, bytes(1, name));

/** Every wire type protobuf parsers must skip, under field numbers no k8s message here uses. */
const unknownFields = Buffer.concat([
  int(900, 7),
  Buffer.concat([key(901, 1), Buffer.alloc(8, 1)]),
  bytes(902, 'x'),
  Buffer.concat([key(903, 5), Buffer.alloc(4, 2)]),
  Buffer.concat([key(904, 3), int(1, 5), bytes(2, 'in-group'), key(904, 4)]),
]);

const FIXTURES = JSON.parse(
  readFileSync(new URL('./fixtures/kubectl-protobuf-bodies.json', import.meta.url), 'utf8'),
) as {
  command: string;
  request: string;
  expectedFrom: string;
  body: string;
  expected: Obj;
}[];

describe('protobuf bodies recorded from kubectl 1.32', () => {
  for (const f of FIXTURES) {
    it(`${f.command} (${f.request})`, () =>
      assert.deepEqual(decodeKubeProtobuf(Buffer.from(f.body, 'base64')), f.expected));
  }
  it('covers every command the lead asked for', () => {
    const all = FIXTURES.map((f) => f.command).join('\n');
    for (const c of [
      'configmap',
      'secret generic',
      'docker-registry',
      'namespace',
      'serviceaccount',
      'deployment',
      'service clusterip',
      'create job',
      'create role',
      'clusterrole ',
      'rolebinding',
      'clusterrolebinding',
      'poddisruptionbudget',
      'ingress',
      'quota',
      'priorityclass',
      'create token',
      'auth can-i',
      'auth whoami',
    ]) {
      assert.ok(all.includes(c), c);
    }
  });
});

describe('isKubeProtobuf', () => {
  const cases: [string | undefined, boolean][] = [
    ['application/vnd.kubernetes.protobuf', true],
    ['Application/VND.Kubernetes.Protobuf; charset=binary', true],
    ['application/vnd.kubernetes.protobuf;stream=watch', true],
    ['application/json', false],
    ['application/apply-patch+yaml', false],
    ['', false],
    [undefined, false],
  ];
  for (const [ct, want] of cases) it(`${ct} → ${want}`, () => assert.equal(isKubeProtobuf(ct), want));
});

describe('Go presence and omitempty rules', () => {
  const deployment = (...spec: Buffer[]) =>
    decodeKubeProtobuf(envelope('apps/v1', 'Deployment', meta('d'), msg(2, ...spec))) as Obj;
  it('keeps a pointer field sent as zero (replicas: 0) and omits it when absent', () => {
    assert.equal(deployment(int(1, 0)).spec.replicas, 0);
    assert.equal('replicas' in deployment().spec, false);
  });
  it('writes Go zero values of structs and non-omitempty fields, as encoding/json does', () => {
    const d = deployment();
    assert.deepEqual(d.metadata, { name: 'd', creationTimestamp: null });
    assert.equal(d.spec.selector, null); // *LabelSelector without omitempty
    assert.deepEqual(d.spec.template, { metadata: { creationTimestamp: null }, spec: { containers: null } });
    assert.deepEqual(d.status, {});
  });
  it('omits zero plain (non-pointer) omitempty scalars even when they are on the wire', () => {
    const d = decodeKubeProtobuf(
      envelope('v1', 'ConfigMap', msg(1, bytes(1, 'c'), bytes(2, ''), int(7, 0)), int(4, 0)),
    ) as Obj;
    assert.deepEqual(d, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', creationTimestamp: null },
      immutable: false,
    });
  });
  it('writes a non-omitempty scalar even when absent (PriorityClass.value)', () => {
    assert.equal(decodeKubeProtobuf(envelope('scheduling.k8s.io/v1', 'PriorityClass', meta('p'))).value, 0);
  });
  it('writes null for non-omitempty lists and pointers (TokenRequest spec)', () => {
    assert.deepEqual(decodeKubeProtobuf(envelope('authentication.k8s.io/v1', 'TokenRequest', meta('t'))).spec, {
      audiences: null,
      expirationSeconds: null,
      boundObjectRef: null,
    });
  });
  it('inlines json:",inline" members (EphemeralContainer.EphemeralContainerCommon)', () => {
    const eph = msg(34, msg(1, bytes(1, 'dbg'), bytes(2, 'busybox')), bytes(2, 'main'));
    const pod = decodeKubeProtobuf(envelope('v1', 'Pod', meta('p'), msg(2, eph))) as Obj;
    assert.deepEqual(pod.spec.ephemeralContainers, [
      { name: 'dbg', image: 'busybox', resources: {}, targetContainerName: 'main' },
    ]);
  });
});

describe('special types', () => {
  const time = (...ts: Buffer[]) =>
    (decodeKubeProtobuf(envelope('v1', 'Namespace', msg(1, bytes(1, 'n'), msg(8, ...ts)))) as Obj).metadata
      .creationTimestamp;
  it('Time: RFC 3339 seconds in UTC, nanos dropped as Go does; empty → null', () => {
    assert.equal(time(int(1, 1700000000), int(2, 999_000_000)), '2023-11-14T22:13:20Z');
    assert.equal(time(int(1, -1)), '1969-12-31T23:59:59Z');
    assert.equal(time(int(1, 253402300799n)), '9999-12-31T23:59:59Z');
    assert.equal(time(), null);
    assert.throws(() => time(int(1, 253402300800n)), /creationTimestamp: time .* outside the years 1-9999/);
  });
  it('MicroTime: six fraction digits', () => {
    const r = new WireReader(Buffer.concat([int(1, 1700000000), int(2, 123_456_789)]));
    assert.equal(decodeMessage('meta/v1.MicroTime', r, 'eventTime'), '2023-11-14T22:13:20.123456Z');
  });
  const durations: [bigint, string][] = [
    [0n, '0s'],
    [1n, '1ns'],
    [1500n, '1.5µs'],
    [1_000_000n, '1ms'],
    [100_000_000n, '100ms'],
    [1_500_000_000n, '1.5s'],
    [90_000_000_000n, '1m30s'],
    [3_600_000_000_000n, '1h0m0s'],
    [-2_000_000_000n, '-2s'],
    [93_784_005_000_000n, '26h3m4.005s'],
  ];
  for (const [ns, s] of durations) it(`Duration ${ns}ns → ${s}`, () => assert.equal(goDuration(ns), s));
  it('Duration message decodes through goDuration', () => {
    assert.equal(decodeMessage('meta/v1.Duration', new WireReader(int(1, 3_600_000_000_000n)), 'd'), '1h0m0s');
    assert.equal(decodeMessage('meta/v1.Duration', undefined, 'd'), '0s');
  });
  it('IntOrString: int (including 0) or string', () => {
    const pdb = (...v: Buffer[]) =>
      (decodeKubeProtobuf(envelope('policy/v1', 'PodDisruptionBudget', meta('p'), msg(2, msg(1, ...v)))) as Obj).spec
        .minAvailable;
    assert.equal(pdb(int(1, 0), int(2, 0)), 0);
    assert.equal(pdb(int(1, 1), bytes(3, '50%')), '50%');
    assert.equal(pdb(int(2, -3)), -3);
  });
  it('Quantity: the string; an invalid one fails with the map key in the path', () => {
    const quota = (q: string) =>
      decodeKubeProtobuf(envelope('v1', 'ResourceQuota', meta('q'), msg(2, entry(1, 'cpu', msg(2, bytes(1, q))))));
    assert.deepEqual((quota('500m') as Obj).spec.hard, { cpu: '500m' });
    assert.throws(() => quota('lots'), /ResourceQuota\.spec\.hard\["cpu"\]: quantities must match/);
  });
  it('bytes map values: base64, a missing value is ""', () => {
    const s = decodeKubeProtobuf(
      envelope('v1', 'Secret', meta('s'), entry(2, 'bin', bytes(2, Buffer.from([0, 255, 1]))), entry(2, 'empty')),
    ) as Obj;
    assert.deepEqual(s.data, { bin: 'AP8B', empty: '' });
  });
  it('FieldsV1: embedded JSON; invalid JSON names the field', () => {
    const cm = (raw: string) =>
      decodeKubeProtobuf(
        envelope(
          'v1',
          'ConfigMap',
          msg(1, bytes(1, 'c'), msg(17, bytes(1, 'kubectl'), bytes(6, 'FieldsV1'), msg(7, bytes(1, raw)))),
        ),
      );
    assert.deepEqual((cm('{"f:data":{}}') as Obj).metadata.managedFields, [
      { manager: 'kubectl', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } },
    ]);
    assert.throws(() => cm('{nope'), /ConfigMap\.metadata\.managedFields\[0\]\.fieldsV1: embedded raw JSON is invalid/);
  });
});

describe('wire format', () => {
  const podWithGroups = (...sc: Buffer[]) =>
    (decodeKubeProtobuf(envelope('v1', 'Pod', meta('p'), msg(2, msg(14, ...sc)))) as Obj).spec.securityContext;
  it('skips unknown fields of every wire type, at the top and nested', () => {
    const plain = decodeKubeProtobuf(envelope('v1', 'ConfigMap', meta('c'), entry(2, 'a', bytes(2, '1'))));
    const noisy = decodeKubeProtobuf(
      Buffer.concat([
        MAGIC,
        unknownFields,
        msg(1, bytes(1, 'v1'), unknownFields, bytes(2, 'ConfigMap')),
        msg(2, unknownFields, msg(1, bytes(1, 'c'), unknownFields), entry(2, 'a', bytes(2, '1'))),
      ]),
    );
    assert.deepEqual(noisy, plain);
  });
  it('skips deeply nested unknown groups without recursion', () => {
    const depth = 100_000;
    const groups = Buffer.concat([...Array(depth).fill(key(905, 3)), ...Array(depth).fill(key(905, 4))]);
    assert.equal(decodeKubeProtobuf(envelope('v1', 'Namespace', meta('n'), groups)).kind, 'Namespace');
  });
  it('accepts packed and unpacked repeated int64', () => {
    assert.deepEqual(podWithGroups(int(4, 1), int(4, 2)).supplementalGroups, [1, 2]);
    assert.deepEqual(podWithGroups(bytes(4, Buffer.concat([varint(1), varint(2)]))).supplementalGroups, [1, 2]);
  });
  it('decodes negative int32/int64 (10-byte varints)', () => {
    assert.equal(podWithGroups(int(2, -1)).runAsUser, -1);
    const svc = decodeKubeProtobuf(envelope('v1', 'Service', meta('s'), msg(2, msg(1, int(3, -80))))) as Obj;
    assert.equal(svc.spec.ports[0].port, -80);
  });
  it('merges a repeated singular message field, as protobuf does', () => {
    const cm = decodeKubeProtobuf(envelope('v1', 'ConfigMap', msg(1, bytes(1, 'c')), msg(1, bytes(3, 'ns'))));
    assert.deepEqual(cm.metadata, { name: 'c', namespace: 'ns', creationTimestamp: null });
  });
});

describe('malformed bodies', () => {
  const good = envelope('apps/v1', 'Deployment', meta('d'), msg(2, int(1, 3)));
  // inner = the bytes of spec.template.spec (a PodSpec)
  const nested = (inner: Buffer) => envelope('apps/v1', 'Deployment', meta('d'), msg(2, msg(3, msg(2, inner))));
  const cases: [string, Buffer, RegExp][] = [
    ['empty body', Buffer.alloc(0), /must start with the bytes 6b 38 73 00 .* got an empty body/],
    ['JSON body', Buffer.from('{"kind":"Pod"}'), /must start with .* got 7b 22 6b 69/],
    [
      'truncated envelope',
      good.subarray(0, good.length - 6),
      /runtime\.Unknown envelope: length \d+ at byte \d+ runs past the end/,
    ],
    [
      'truncated varint in a nested field',
      nested(Buffer.concat([key(4, 0), Buffer.from([0xff])])),
      /Deployment\.spec\.template\.spec: truncated varint at byte \d+/,
    ],
    [
      'nested length past its message',
      nested(Buffer.from([0x12, 0x05, 0x41])),
      /Deployment\.spec\.template\.spec: length 5 at byte \d+ runs past the end/,
    ],
    [
      'wrong wire type for a known field',
      nested(int(2, 1)),
      /Deployment\.spec\.template\.spec\.containers: field 2 \(containers\) has wire type varint, expected length-delimited/,
    ],
    ['invalid wire type 7', nested(Buffer.from([0x0f])), /invalid wire type 7 for field 1/],
    ['field number 0', nested(Buffer.from([0x02, 0x00])), /invalid field number 0/],
    ['stray end-group', nested(key(905, 4)), /unexpected end-group for field 905/],
    ['unterminated group', nested(key(905, 3)), /unterminated group for field 905/],
    [
      'unsupported kind',
      envelope('apps/v1', 'StatefulSet'),
      /no protobuf decoding for apps\/v1 StatefulSet: .* supported for v1 ConfigMap, .*apps\/v1 Deployment/,
    ],
    ['missing kind', Buffer.concat([MAGIC, msg(1, bytes(1, 'v1'))]), /no typeMeta\.kind/],
    [
      'content encoding',
      Buffer.concat([MAGIC, msg(1, bytes(1, 'v1'), bytes(2, 'ConfigMap')), bytes(3, 'gzip')]),
      /unsupported contentEncoding "gzip"/,
    ],
  ];
  for (const [name, body, re] of cases) it(name, () => assert.throws(() => decodeKubeProtobuf(body), re));
});

describe('message table', () => {
  it('every entry parses and every referenced message exists', () => {
    for (const name of Object.keys(MESSAGES)) assert.ok(messageDef(name).fields.length > 0, name);
  });
  it('every supported kind has a message', () => {
    for (const [v, kinds] of Object.entries(KINDS))
      for (const k of kinds) assert.ok(MESSAGES[`${API_PACKAGES[v]}.${k}`], `${v} ${k}`);
  });
  it('matches what generate-messages.ts extracts from .tools/bin/kubectl', {
    skip: !existsSync(KUBECTL) && 'no kubectl',
  }, () => {
    const fresh = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'packages/apiserver/src/http/protobuf/generate-messages.ts', KUBECTL],
      { encoding: 'utf8' },
    );
    const stale =
      'messages.ts is stale: node --import tsx packages/apiserver/src/http/protobuf/generate-messages.ts .tools/bin/kubectl > packages/apiserver/src/http/protobuf/messages.ts';
    assert.ok(fresh === readFileSync('packages/apiserver/src/http/protobuf/messages.ts', 'utf8'), stale);
  });
});

describe('live: kubectl 1.32 typed clients', { skip: !existsSync(KUBECTL) && 'no kubectl' }, () => {
  let api: ApiServer;
  let server: ReturnType<typeof createServer>;
  let dir: string;
  let kubeconfig: string;
  let captured: Buffer[] = [];
  before(async () => {
    api = await startApiServer({ port: 0 });
    const cert = await api.issueCertificate('capture', ['localhost'], ['127.0.0.1']);
    // Protobuf writes are captured and answered with the decoded object; everything else (discovery) is the real server.
    server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      if (!isKubeProtobuf(req.headers['content-type'])) return partsOf(api).front.handle(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        captured.push(body);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify(decodeKubeProtobuf(body)));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'protobuf-live-'));
    kubeconfig = join(dir, 'kubeconfig');
    const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
    writeFileSync(kubeconfig, api.kubeconfigYaml({ namespace: 'default' }).replace(api.url, url));
    const tls = await api.issueCertificate('example.com', ['example.com'], []);
    writeFileSync(join(dir, 'tls.crt'), tls.certPem);
    writeFileSync(join(dir, 'tls.key'), tls.keyPem);
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 0xfe, 0xff]));
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const kubectl = (args: string[]) =>
    runKubectl(['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args]);
  const sent = async (args: string[]): Promise<Obj> => {
    captured = [];
    const r = await kubectl(args);
    assert.equal(captured.length >= 1, true, `kubectl ${args.join(' ')} sent no protobuf body: ${r.stderr}`);
    return decodeKubeProtobuf(captured[0]!);
  };
  const withFiles = (args: string[]) => args.map((a) => a.replace('@', `${dir}/`));
  const creates: string[][] = [
    ['configmap', 'c', '--from-literal=a=1', '--from-file=@blob.bin'],
    ['secret', 'generic', 's', '--from-literal=k=v', '--from-file=@blob.bin'],
    ['secret', 'tls', 't', '--cert=@tls.crt', '--key=@tls.key'],
    ['deployment', 'd', '--image=nginx', '--replicas=0', '--port=8080'],
    ['service', 'nodeport', 'np', '--tcp=80:http', '--node-port=30001'],
    ['role', 'r', '--verb=get', '--resource=pods', '--resource=configmaps', '--resource-name=x'],
    ['priorityclass', 'zero', '--value=0', '--preemption-policy=Never'],
    ['ingress', 'i', '--rule=a.com/*=svc:80,tls'],
    ['quota', 'q', '--hard=requests.cpu=2,count/pods=3'],
    ['poddisruptionbudget', 'p', '--selector=a=b', '--max-unavailable=0'],
  ];
  for (const args of creates) {
    it(`create ${args.slice(0, 2).join(' ')}: decoded body equals --dry-run=client -o json`, async () => {
      const decoded = await sent(['create', ...withFiles(args), '--dry-run=server']);
      const client = await kubectl(['create', ...withFiles(args), '--dry-run=client', '-o', 'json']);
      assert.equal(client.code, 0, client.stderr);
      assert.deepEqual(decoded, JSON.parse(client.stdout));
    });
  }
  it('create token: a TokenRequest with the duration in seconds', async () => {
    const t = await sent(['create', 'token', 'default', '--duration=2h', '--audience=x']);
    assert.deepEqual([t.kind, t.spec.expirationSeconds, t.spec.audiences], ['TokenRequest', 7200, ['x']]);
  });
  it('auth can-i: a SelfSubjectAccessReview with the resource attributes', async () => {
    const r = await sent(['auth', 'can-i', 'delete', 'deployments.apps', '-n', 'kube-system']);
    assert.deepEqual(r.spec, {
      resourceAttributes: { namespace: 'kube-system', verb: 'delete', group: 'apps', resource: 'deployments' },
    });
  });
  it('auth whoami: a SelfSubjectReview', async () => {
    assert.equal((await sent(['auth', 'whoami'])).kind, 'SelfSubjectReview');
  });
});
