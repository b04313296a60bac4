import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type EnvVar,
  mergeEnvByName,
  mergeEnvByPrecedence,
  OPERATOR_DEFAULT_DOWNLOAD_ENV,
  validateEnvVars,
} from '../../src/common/env-merge/index.ts';

describe('mergeEnvByName', () => {
  const cases: { name: string; layers: (EnvVar[] | undefined)[]; want: EnvVar[] }[] = [
    { name: 'no layers', layers: [], want: [] },
    {
      name: 'undefined layers skipped',
      layers: [undefined, [{ name: 'A', value: '1' }], undefined],
      want: [{ name: 'A', value: '1' }],
    },
    {
      name: 'later layer replaces in place, new names appended',
      layers: [
        [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        [
          { name: 'C', value: '3' },
          { name: 'A', value: 'x' },
        ],
      ],
      want: [
        { name: 'A', value: 'x' },
        { name: 'B', value: '2' },
        { name: 'C', value: '3' },
      ],
    },
    {
      name: 'empty value in a higher layer overrides',
      layers: [[{ name: 'A', value: '1' }], [{ name: 'A', value: '' }]],
      want: [{ name: 'A', value: '' }],
    },
    {
      name: 'valueFrom replaces value entirely',
      layers: [[{ name: 'A', value: '1' }], [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]],
      want: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(mergeEnvByName(...c.layers), c.want));
  }

  it('does not alias input entries', () => {
    const input: EnvVar[] = [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }];
    const out = mergeEnvByName(input);
    (out[0]!.valueFrom as { configMapKeyRef: { name: string } }).configMapKeyRef.name = 'changed';
    assert.equal((input[0]!.valueFrom as { configMapKeyRef: { name: string } }).configMapKeyRef.name, 'c');
  });
});

describe('mergeEnvByPrecedence (docs/aim.md: operator defaults < cluster < namespace < artifact)', () => {
  const cluster = [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' }];
  const namespace = [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP' }];
  const artifact = [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'XET' }];
  const cases = [
    { name: 'operator default only', layers: {}, want: 'XET,HF_TRANSFER' },
    { name: 'cluster over default', layers: { clusterRuntimeConfig: cluster }, want: 'HTTP,XET' },
    {
      name: 'namespace over cluster',
      layers: { clusterRuntimeConfig: cluster, namespaceRuntimeConfig: namespace },
      want: 'HTTP',
    },
    {
      name: 'artifact over everything',
      layers: { clusterRuntimeConfig: cluster, namespaceRuntimeConfig: namespace, object: artifact },
      want: 'XET',
    },
    {
      name: 'custom operator defaults',
      layers: { operatorDefaults: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HF_TRANSFER' }] },
      want: 'HF_TRANSFER',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const env = mergeEnvByPrecedence(c.layers);
      assert.deepEqual(env, [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: c.want }]);
    });
  }
  it('leaves the frozen defaults intact', () => {
    mergeEnvByPrecedence({ namespaceRuntimeConfig: namespace })[0]!.value = 'mutated';
    assert.equal(OPERATOR_DEFAULT_DOWNLOAD_ENV[0]!.value, 'XET,HF_TRANSFER');
  });
});

describe('validateEnvVars', () => {
  const cases: { name: string; env: EnvVar[] | undefined; want: { field: string; match: RegExp }[] }[] = [
    { name: 'undefined is fine', env: undefined, want: [] },
    { name: 'valid names', env: [{ name: 'A_B', value: '' }, { name: '_x.y-z' }, { name: 'camelCase1' }], want: [] },
    { name: 'empty name', env: [{ name: '' }], want: [{ field: 'spec.env[0].name', match: /Required value/ }] },
    {
      name: 'leading digit',
      env: [{ name: '1A' }],
      want: [{ field: 'spec.env[0].name', match: /"1A".*must not start with a digit/ }],
    },
    {
      name: 'equals sign',
      env: [{ name: 'A=B' }],
      want: [{ field: 'spec.env[0].name', match: /Invalid value: "A=B"/ }],
    },
    {
      name: 'duplicate name',
      env: [{ name: 'A' }, { name: 'B' }, { name: 'A' }],
      want: [{ field: 'spec.env[2].name', match: /Duplicate value: "A" is already set by spec\.env\[0\]/ }],
    },
    {
      name: 'value and valueFrom',
      env: [{ name: 'A', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      want: [{ field: 'spec.env[0].valueFrom', match: /may not be specified/ }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errors = validateEnvVars(c.env, 'spec.env');
      assert.equal(errors.length, c.want.length, JSON.stringify(errors));
      c.want.forEach((w, i) => {
        assert.equal(errors[i]!.field, w.field);
        assert.match(errors[i]!.message, w.match);
      });
    });
  }
});
