// The pure model-storage builders: derived names, PVC sizing with headroom and storage class, and the
// download env precedence (artifact > namespace > cluster > operator default XET,HF_TRANSFER).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeEnvByName } from '../../src/common/env-merge/index.ts';
import {
  artifactAccessMode,
  buildDownloadJob,
  buildModelPvc,
  configStorageClass,
  derivedName,
  downloadBaseEnv,
  downloadEnv,
  headroomPercent,
  jobPhase,
  parseCheckSizeOutput,
  parseDownloadLog,
  protocolSequence,
  pvcSize,
  quantityBytes,
  stalledSeconds,
} from '../../src/common/model-storage/index.ts';

const GiB = 1024 ** 3;

describe('derivedName', () => {
  it('joins DNS-1123 parts with a hash of the inputs, stays within 63 characters, and differs per input', () => {
    const a = derivedName(['hf://Qwen/Qwen3.32B'], ['hf://Qwen/Qwen3.32B', 'fast']);
    assert.match(a, /^hf-qwen-qwen3-32b-[0-9a-f]{8}$/);
    assert.notEqual(a, derivedName(['hf://Qwen/Qwen3.32B'], ['hf://Qwen/Qwen3.32B', 'slow']));
    const long = derivedName(['x'.repeat(80), 'short', 'y'.repeat(70)], ['k']);
    assert.ok(long.length <= 63, long);
    assert.match(long, /-short-/, 'the shorter part survives: the longest parts are cut first');
    assert.equal(derivedName(['---'], ['k']).startsWith('part-'), true, 'an empty part becomes "part"');
  });
});

describe('PVC sizing', () => {
  const table: Array<[string, number, number, string]> = [
    ['10 GiB + default 10 % → 11Gi', 10 * GiB, 10, '11Gi'],
    ['10 GiB + 0 % → exactly 10Gi', 10 * GiB, 0, '10Gi'],
    ['15.2 GB + 10 % rounds up to whole GiB', 15_200_000_000, 10, '16Gi'],
    ['1 byte → at least 1Gi', 1, 10, '1Gi'],
    ['100 GiB + 50 %', 100 * GiB, 50, '150Gi'],
  ];
  for (const [name, bytes, headroom, want] of table) it(name, () => assert.equal(pvcSize(bytes, headroom), want));

  it('headroom and storage class come from the merged runtime config (new field, then the deprecated one, then defaults)', () => {
    assert.equal(headroomPercent(undefined), 10);
    assert.equal(headroomPercent({ pvcHeadroomPercent: 25 }), 25);
    assert.equal(
      headroomPercent({ storage: { pvcHeadroomPercent: 0 }, pvcHeadroomPercent: 25 }),
      0,
      'an explicit 0 counts',
    );
    assert.equal(configStorageClass({ defaultStorageClassName: 'fast-nvme' }), 'fast-nvme');
    assert.equal(
      configStorageClass({ storage: { defaultStorageClassName: 'team-ssd' }, defaultStorageClassName: 'fast-nvme' }),
      'team-ssd',
    );
    assert.equal(configStorageClass({}), undefined, 'none: the cluster default class');
    const pvc = buildModelPvc({
      name: 'a',
      namespace: 'ns',
      sizeBytes: 10 * GiB,
      headroomPercent: 10,
      storageClassName: 'team-ssd',
    });
    assert.deepEqual(pvc.spec.resources, { requests: { storage: '11Gi' } });
    assert.equal(pvc.spec.storageClassName, 'team-ssd');
    assert.equal(
      'storageClassName' in buildModelPvc({ name: 'a', namespace: 'ns', sizeBytes: 1, headroomPercent: 0 }).spec,
      false,
    );
  });

  it("artifact PVCs are ReadWriteMany unless the runtime config's storage.artifactAccessMode says otherwise", () => {
    assert.equal(artifactAccessMode(undefined), 'ReadWriteMany');
    assert.equal(artifactAccessMode({ storage: { defaultStorageClassName: 'x' } }), 'ReadWriteMany');
    assert.equal(artifactAccessMode({ storage: { artifactAccessMode: 'ReadWriteOnce' } }), 'ReadWriteOnce');
    const pvc = buildModelPvc({ name: 'a', namespace: 'ns', sizeBytes: 1, accessModes: [artifactAccessMode({})] });
    assert.deepEqual(pvc.spec.accessModes, ['ReadWriteMany']);
  });

  it('a download is stalled once its last activity is older than STALL_TIMEOUT (default 120 s)', () => {
    const log = [
      '2026-01-01T00:00:00Z INFO Trying protocol XET (attempt 1/2) for hf://a/b',
      '2026-01-01T00:00:10Z INFO progress 10/100 bytes (10 %)',
    ].join('\n');
    const p = parseDownloadLog(log);
    const t0 = Date.parse('2026-01-01T00:00:10Z');
    assert.equal(p.lastActivityAt, t0);
    assert.equal(stalledSeconds(p, [], t0 + 119_000), undefined);
    assert.equal(stalledSeconds(p, [], t0 + 121_000), 121);
    assert.equal(stalledSeconds(p, [{ name: 'STALL_TIMEOUT', value: '5' }], t0 + 6_000), 6);
    assert.equal(
      stalledSeconds(p, [{ name: 'STALL_TIMEOUT', value: 'junk' }], t0 + 6_000),
      undefined,
      'junk: the default',
    );
    assert.equal(
      stalledSeconds(
        parseDownloadLog(`${log}\n2026-01-01T00:00:11Z INFO Download complete via XET: 100 bytes in /cache`),
        [],
        t0 + 999_000,
      ),
      undefined,
    );
    assert.equal(stalledSeconds(parseDownloadLog('no stamps here'), [], t0), undefined);
  });

  it('quantities parse to bytes; junk is undefined, never a crash', () => {
    assert.equal(quantityBytes('8Gi'), 8 * GiB);
    assert.equal(quantityBytes(1024), 1024);
    assert.equal(quantityBytes('lots'), undefined);
    assert.equal(quantityBytes('-1'), undefined);
  });
});

describe('parseDownloadLog of a log read by its last lines', () => {
  it('takes the protocol from the completion line when the "Trying" line was cut off', () => {
    const tail = [
      '2026-01-01T00:00:09Z INFO progress 90/100 bytes',
      '2026-01-01T00:00:10Z INFO progress 100/100 bytes',
      '2026-01-01T00:00:11Z INFO Download complete via XET: 100 bytes in /cache',
    ].join('\n');
    const p = parseDownloadLog(tail);
    assert.equal(p.protocol, 'XET');
    assert.equal(p.complete, true);
    assert.equal(p.completedBytes, 100);
  });
});

describe('jobPhase', () => {
  const job = (...conditions: Array<[string, string]>) => ({
    status: { conditions: conditions.map(([type, status]) => ({ type, status })) },
  });
  // kube-controller-manager decides the outcome (SuccessCriteriaMet / FailureTarget) before its pods have
  // terminated and only then writes Complete / Failed: the outcome counts from the first condition
  const cases: Array<[string, ReturnType<typeof job> | undefined, string]> = [
    ['no Job', undefined, 'absent'],
    ['no conditions', job(), 'running'],
    ['Complete', job(['Complete', 'True']), 'complete'],
    ['SuccessCriteriaMet before Complete', job(['SuccessCriteriaMet', 'True']), 'complete'],
    ['Failed', job(['Failed', 'True']), 'failed'],
    ['FailureTarget before Failed', job(['FailureTarget', 'True']), 'failed'],
    ['a condition that is False', job(['FailureTarget', 'False'], ['Complete', 'False']), 'running'],
    ['Suspended only', job(['Suspended', 'True']), 'running'],
  ];
  for (const [what, j, phase] of cases) it(`${what} → ${phase}`, () => assert.equal(jobPhase(j), phase));
});

describe('download env precedence', () => {
  const base = downloadBaseEnv({ artifactName: 'art', namespace: 'ml-team' });
  const value = (env: Array<{ name: string; value?: string }>, name: string) => env.find((e) => e.name === name)?.value;
  const cluster = [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' }];
  const namespace = [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' }];
  const table: Array<
    [
      string,
      Array<{ name: string; value: string }> | undefined,
      Array<{ name: string; value: string }> | undefined,
      string,
    ]
  > = [
    ['operator default', undefined, undefined, 'XET,HF_TRANSFER'],
    ['cluster over default', cluster, undefined, 'HTTP,XET'],
    [
      'namespace over cluster',
      mergeEnvByName(cluster, namespace) as Array<{ name: string; value: string }>,
      undefined,
      'HTTP',
    ],
    [
      'artifact over everything',
      mergeEnvByName(cluster, namespace) as Array<{ name: string; value: string }>,
      [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HF_TRANSFER' }],
      'HF_TRANSFER',
    ],
  ];
  for (const [name, rc, own, want] of table) {
    it(name, () => {
      const env = downloadEnv(base, rc, own);
      assert.equal(value(env, 'AIM_DOWNLOADER_PROTOCOL'), want);
      assert.deepEqual(protocolSequence(env), want.split(','));
      assert.equal(value(env, 'ARTIFACT_NAME'), 'art', 'the fixed variables stay');
    });
  }

  it('the download Job mounts the claim and carries the env and labels on its pod template', () => {
    const job = buildDownloadJob({
      name: 'j',
      namespace: 'ml-team',
      image: 'img',
      sourceUri: 'hf://a/b',
      env: base,
      claimName: 'pvc-1',
      labels: { a: 'b' },
    });
    const tpl = (job.spec as any).template;
    assert.equal(tpl.metadata.labels.a, 'b');
    assert.equal(tpl.spec.volumes[0].persistentVolumeClaim.claimName, 'pvc-1');
    assert.deepEqual(tpl.spec.containers[0].args, ['download', 'hf://a/b']);
    assert.equal(tpl.spec.containers[0].securityContext.runAsNonRoot, true);
  });

  it('check-size output: the last byte-count line wins; none is undefined', () => {
    assert.equal(parseCheckSizeOutput('starting\n123\nINFO size computed\n16106127360\n'), 16106127360);
    assert.equal(parseCheckSizeOutput('error: 401 Unauthorized'), undefined);
  });
});
