// spec.model.storage: the defaults (purpose, mountPath from purpose, the managed claim name and access mode)
// and the admission rules, one row each, with the field every message names; managed volumes are
// immutable on update, unmanaged ones may go.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  defaultModelDeployment,
  type StorageVolume,
  validateModelDeployment,
} from '../../../src/controllers/kubeairunway/validation/index.ts';

const md = (volumes: StorageVolume[], name = 'llm', source?: 'custom'): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name, namespace: 'ml' },
  spec: {
    model: { id: 'Qwen/Qwen3-0.6B', ...(source ? { source } : {}), storage: { volumes } },
    engine: { type: 'vllm' },
    resources: { gpu: { count: 1 } },
  },
});
const volumesOf = (m: ModelDeployment) => m.spec.model.storage?.volumes ?? [];
const validate = (volumes: StorageVolume[], old?: StorageVolume[]) =>
  validateModelDeployment(defaultModelDeployment(md(volumes)), old ? { spec: md(old).spec } : undefined);

describe('storage defaults', () => {
  it('purpose custom; mountPath from purpose; a managed volume gets <deployment>-<volume> and ReadWriteMany', () => {
    const out = volumesOf(
      defaultModelDeployment(
        md([
          { name: 'cache', purpose: 'modelCache', size: '100Gi' },
          { name: 'compiled', purpose: 'compilationCache', claimName: 'shared-cc' },
          { name: 'extra', claimName: 'data', mountPath: '/data' },
        ]),
      ),
    );
    assert.deepEqual(out, [
      {
        name: 'cache',
        purpose: 'modelCache',
        size: '100Gi',
        mountPath: '/model-cache',
        claimName: 'llm-cache',
        accessMode: 'ReadWriteMany',
      },
      { name: 'compiled', purpose: 'compilationCache', claimName: 'shared-cc', mountPath: '/compilation-cache' },
      { name: 'extra', claimName: 'data', mountPath: '/data', purpose: 'custom' },
    ]);
  });

  it('what the user set stays', () => {
    const [v] = volumesOf(
      defaultModelDeployment(
        md([{ name: 'c', purpose: 'modelCache', size: '1Gi', mountPath: '/m', accessMode: 'ReadWriteOnce' }]),
      ),
    );
    assert.equal(v?.mountPath, '/m');
    assert.equal(v?.accessMode, 'ReadWriteOnce');
  });
});

describe('storage rules', () => {
  const cases: Array<[string, StorageVolume[], string, RegExp]> = [
    [
      'no claimName and no size',
      [{ name: 'c', purpose: 'modelCache' }],
      'spec.model.storage.volumes[0].claimName',
      /is required when size is not set/,
    ],
    [
      'readOnly with size',
      [{ name: 'c', purpose: 'modelCache', size: '1Gi', readOnly: true }],
      'spec.model.storage.volumes[0].readOnly',
      /cannot be true together with size/,
    ],
    [
      'a managed volume naming another claim',
      [{ name: 'c', purpose: 'modelCache', size: '1Gi', claimName: 'mine' }],
      'spec.model.storage.volumes[0].claimName',
      /must be "llm-c" when size is set/,
    ],
    [
      'an invalid size',
      [{ name: 'c', purpose: 'modelCache', size: '-1Gi' }],
      'spec.model.storage.volumes[0].size',
      /positive Kubernetes quantity/,
    ],
    [
      'a size below the floor (20 bytes)',
      [{ name: 'c', purpose: 'custom', mountPath: '/c', size: '20' }],
      'spec.model.storage.volumes[0].size',
      /20 is below the minimum of 1Mi: set a larger size/,
    ],
    [
      'a modelCache below 1Gi',
      [{ name: 'c', purpose: 'modelCache', size: '512Mi' }],
      'spec.model.storage.volumes[0].size',
      /512Mi is below the minimum of 1Gi for a modelCache/,
    ],
    [
      'a size above the ceiling (1Ei)',
      [{ name: 'c', purpose: 'modelCache', size: '1Ei' }],
      'spec.model.storage.volumes[0].size',
      /1Ei exceeds the maximum of 64Ti/,
    ],
    [
      'accessMode without size',
      [{ name: 'c', claimName: 'x', mountPath: '/x', accessMode: 'ReadWriteOnce' }],
      'spec.model.storage.volumes[0].accessMode',
      /only allowed with size/,
    ],
    [
      'storageClassName without size',
      [{ name: 'c', claimName: 'x', mountPath: '/x', storageClassName: '' }],
      'spec.model.storage.volumes[0].storageClassName',
      /only allowed with size/,
    ],
    [
      'custom without mountPath',
      [{ name: 'c', claimName: 'x' }],
      'spec.model.storage.volumes[0].mountPath',
      /required for purpose custom/,
    ],
    [
      'a relative mountPath',
      [{ name: 'c', claimName: 'x', mountPath: 'models' }],
      'spec.model.storage.volumes[0].mountPath',
      /must be an absolute path/,
    ],
    [
      'a system mountPath',
      [{ name: 'c', claimName: 'x', mountPath: '/etc/models' }],
      'spec.model.storage.volumes[0].mountPath',
      /under a system path/,
    ],
    [
      '/var/run itself',
      [{ name: 'c', claimName: 'x', mountPath: '/var/run' }],
      'spec.model.storage.volumes[0].mountPath',
      /under a system path/,
    ],
    [
      'an invalid claim name',
      [{ name: 'c', claimName: 'Not_A_Name', mountPath: '/x' }],
      'spec.model.storage.volumes[0].claimName',
      /not a valid PersistentVolumeClaim name/,
    ],
    [
      'duplicate mount paths',
      [
        { name: 'a', claimName: 'x', mountPath: '/m' },
        { name: 'b', claimName: 'y', mountPath: '/m' },
      ],
      'spec.model.storage.volumes',
      /mountPath "\/m" is used by more than one volume/,
    ],
    [
      'duplicate claims',
      [
        { name: 'a', claimName: 'x', mountPath: '/a' },
        { name: 'b', claimName: 'x', mountPath: '/b' },
      ],
      'spec.model.storage.volumes',
      /claimName "x" is used by more than one volume/,
    ],
    [
      'two modelCaches',
      [
        { name: 'a', purpose: 'modelCache', size: '1Gi' },
        { name: 'b', purpose: 'modelCache', claimName: 'y', mountPath: '/b' },
      ],
      'spec.model.storage.volumes',
      /2 volumes have purpose modelCache; at most one may/,
    ],
    [
      'two compilationCaches',
      [
        { name: 'a', purpose: 'compilationCache', claimName: 'x' },
        { name: 'b', purpose: 'compilationCache', claimName: 'y', mountPath: '/b' },
      ],
      'spec.model.storage.volumes',
      /purpose compilationCache; at most one may/,
    ],
  ];
  for (const [what, volumes, field, message] of cases)
    it(what, () => {
      const { errors } = validate(volumes);
      const hit = errors.find((e) => e.field === field);
      assert.ok(hit, `${what}: no error on ${field} in ${JSON.stringify(errors)}`);
      assert.match(hit.message, message);
      assert.ok(hit.message.startsWith(field), 'the message names the field');
    });

  it('valid volumes pass: a managed model cache, an existing claim, an explicit empty storage class with size', () => {
    const { errors } = validate([
      { name: 'cache', purpose: 'modelCache', size: '50Gi', storageClassName: '' },
      { name: 'data', claimName: 'team-data', mountPath: '/data', readOnly: true },
    ]);
    assert.deepEqual(errors, []);
  });

  it('warnings: a read-only modelCache skips the download, a read-only compilationCache cannot store', () => {
    const { warnings } = validate([
      { name: 'm', purpose: 'modelCache', claimName: 'x', readOnly: true },
      { name: 'c', purpose: 'compilationCache', claimName: 'y', readOnly: true },
    ]);
    assert.ok(warnings.some((w) => /model download will be skipped/.test(w)));
    assert.ok(warnings.some((w) => /read-only compilationCache/.test(w)));
  });

  it('the managed download Job name counts toward the name limit', () => {
    const m = md([{ name: 'c', purpose: 'modelCache', size: '1Gi' }], 'n'.repeat(50));
    m.spec.provider = { name: 'llmd' };
    const { errors } = validateModelDeployment(defaultModelDeployment(m));
    assert.match(errors.map((e) => e.message).join('\n'), /the model download Job is named/);
  });
});

describe('storage updates', () => {
  const managed: StorageVolume = { name: 'cache', purpose: 'modelCache', size: '10Gi' };
  it('a managed volume cannot be removed', () => {
    const { errors } = validate([], [managed]);
    assert.match(errors.map((e) => e.message).join('\n'), /managed volume "cache" cannot be removed/);
  });
  it('a managed volume cannot be modified (size, class)', () => {
    const { errors } = validate([{ ...managed, size: '20Gi', storageClassName: 'fast' }], [managed]);
    assert.match(
      errors.map((e) => e.message).join('\n'),
      /managed volume "cache" cannot be modified \(size, storageClassName changed\)/,
    );
  });
  it('an unchanged managed volume (stored without defaults) passes; an unmanaged one may be removed; new ones may be added', () => {
    assert.deepEqual(validate([managed], [managed]).errors, []);
    assert.deepEqual(validate([managed], [managed, { name: 'd', claimName: 'x', mountPath: '/d' }]).errors, []);
    assert.deepEqual(validate([managed, { name: 'd', claimName: 'x', mountPath: '/d' }], [managed]).errors, []);
  });
});
