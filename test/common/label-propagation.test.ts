import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  labelKeyMatches,
  propagatedLabels,
  validateLabelPatterns,
  withPropagatedLabels,
} from '../../src/common/label-propagation/index.ts';
import type { RuntimeConfigObject } from '../../src/common/runtime-config/index.ts';

describe('labelKeyMatches', () => {
  const cases: { pattern: string; key: string; want: boolean }[] = [
    { pattern: 'org.example/team', key: 'org.example/team', want: true },
    { pattern: 'org.example/team', key: 'org.example/teams', want: false },
    { pattern: 'org.example/*', key: 'org.example/cost-center', want: true },
    { pattern: 'org.example/*', key: 'org.example.evil/cost-center', want: false },
    { pattern: 'org.example/*', key: 'org.example', want: false },
    { pattern: 'compliance.*/severity', key: 'compliance.sec/severity', want: true },
    { pattern: 'compliance.*/severity', key: 'compliance.audit/severity', want: true },
    { pattern: 'compliance.*/severity', key: 'compliance.sec/level', want: false },
    { pattern: 'compliance.*/severity', key: 'other.sec/severity', want: false },
    { pattern: 'team-*', key: 'team-a', want: true },
    { pattern: 'team-*', key: 'x.io/team-a', want: false },
    { pattern: '*', key: 'env', want: true },
    { pattern: '*', key: 'org.example/team', want: false },
    { pattern: '*/*', key: 'org.example/team', want: true },
    { pattern: 'a*b*c/x', key: 'aXbYbZc/x', want: true },
    { pattern: 'a*b*c/x', key: 'aXbYbZ/x', want: false },
    { pattern: 'org.*.com/*-id', key: 'org.a.b.com/tenant-id', want: true },
    { pattern: 'bad/pattern/x', key: 'bad/pattern/x', want: false },
    { pattern: 'a$/x', key: 'a$/x', want: false },
  ];
  for (const c of cases) {
    it(`${c.pattern} ~ ${c.key} = ${c.want}`, () => assert.equal(labelKeyMatches(c.pattern, c.key), c.want));
  }
  it('is linear on adversarial input (no catastrophic backtracking)', () => {
    const started = performance.now();
    assert.equal(labelKeyMatches(`${'*a'.repeat(30)}b`, 'a'.repeat(63)), false);
    assert.ok(performance.now() - started < 200);
  });
});

describe('validateLabelPatterns', () => {
  const cases: { name: string; match: string[] | undefined; want: { field: string; message: RegExp }[] }[] = [
    { name: 'undefined', match: undefined, want: [] },
    {
      name: 'the AIM design patterns',
      match: ['org.example/cost-center', 'compliance.example/*', 'compliance.*/severity'],
      want: [],
    },
    {
      name: 'empty',
      match: ['ok/*', ''],
      want: [{ field: 'spec.labelPropagation.match[1]', message: /must not be empty/ }],
    },
    {
      name: 'two slashes',
      match: ['a/b/c'],
      want: [{ field: 'spec.labelPropagation.match[0]', message: /at most one "\/"/ }],
    },
    {
      name: 'empty prefix',
      match: ['/x'],
      want: [{ field: 'spec.labelPropagation.match[0]', message: /prefix part must not be empty/ }],
    },
    {
      name: 'empty name',
      match: ['x/'],
      want: [{ field: 'spec.labelPropagation.match[0]', message: /name part must not be empty/ }],
    },
    {
      name: 'bad character',
      match: ['org.example/te am'],
      want: [{ field: 'spec.labelPropagation.match[0]', message: /"te am" may contain only/ }],
    },
    {
      name: 'regex syntax is not a pattern',
      match: ['org\\.example/.+'],
      want: [{ field: 'spec.labelPropagation.match[0]', message: /may contain only/ }],
    },
    {
      name: 'name too long',
      match: [`x/${'n'.repeat(64)}`],
      want: [{ field: 'spec.labelPropagation.match[0]', message: /longer than 63/ }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errors = validateLabelPatterns(c.match);
      assert.equal(errors.length, c.want.length, JSON.stringify(errors));
      c.want.forEach((w, i) => {
        assert.equal(errors[i]!.field, w.field);
        assert.match(errors[i]!.message, w.message);
      });
    });
  }
});

// docs/aim.md's cost-tracking example, unchanged.
const seedConfig = parse(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterRuntimeConfig
metadata:
  name: default
spec:
  labelPropagation:
    enabled: true
    match:
      - "org.example/cost-center"
      - "org.example/department"
      - "org.example/project"
`) as RuntimeConfigObject;
const seedService = parse(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata:
  name: qwen-chat
  namespace: ml-team
  labels:
    org.example/cost-center: "eng-ml"
    org.example/department: "engineering"
    org.example/project: "chatbot-v2"
spec:
  model:
    ref: qwen-qwen3-32b
`) as { metadata: { labels: Record<string, string> } };

describe('propagatedLabels', () => {
  const parent = { ...seedService.metadata.labels, env: 'test', 'compliance.sec/severity': 'high' };
  const seedMatch = seedConfig.spec!.labelPropagation!;
  const cases: {
    name: string;
    config: { enabled?: boolean; match?: string[] } | undefined;
    child?: Record<string, string>;
    want: Record<string, string>;
  }[] = [
    { name: 'AIM example: cost labels propagate, env does not', config: seedMatch, want: seedService.metadata.labels },
    { name: 'disabled', config: { ...seedMatch, enabled: false }, want: {} },
    { name: 'no config', config: undefined, want: {} },
    { name: 'enabled without match', config: { enabled: true }, want: {} },
    {
      name: 'child labels win and are kept',
      config: seedMatch,
      child: { 'org.example/project': 'own', app: 'x' },
      want: {
        'org.example/project': 'own',
        app: 'x',
        'org.example/cost-center': 'eng-ml',
        'org.example/department': 'engineering',
      },
    },
    {
      name: 'wildcards and invalid patterns (skipped)',
      config: { enabled: true, match: ['compliance.*/severity', 'a/b/c', 'org.example/dep*'] },
      want: { 'compliance.sec/severity': 'high', 'org.example/department': 'engineering' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(propagatedLabels(parent, c.config, c.child), c.want));
  }
  it('does not mutate the child labels passed in', () => {
    const child = { app: 'x' };
    propagatedLabels(parent, seedMatch, child);
    assert.deepEqual(child, { app: 'x' });
  });
});

type Labels = Record<string, string>;
interface Workload {
  kind: string;
  metadata: { name?: string; labels?: Labels };
  spec: { template: { metadata?: { labels?: Labels }; spec?: object } };
}

describe('withPropagatedLabels', () => {
  const parent = { 'org.example/team': 'ml', other: 'no' };
  const config = { enabled: true, match: ['org.example/*'] };
  it('Job: metadata and pod template both get the labels; the template keeps its own', () => {
    const job: Workload = {
      kind: 'Job',
      metadata: { name: 'dl' },
      spec: { template: { metadata: { labels: { 'org.example/team': 'pod-own' } }, spec: {} } },
    };
    const out = withPropagatedLabels(parent, config, job);
    assert.deepEqual(out.metadata.labels, { 'org.example/team': 'ml' });
    assert.deepEqual(out.spec.template.metadata?.labels, { 'org.example/team': 'pod-own' });
    assert.equal(job.metadata.labels, undefined);
  });
  it('Job without template labels gets them on the template', () => {
    const out = withPropagatedLabels(parent, config, {
      kind: 'Job',
      metadata: {},
      spec: { template: { spec: {} } },
    } as Workload);
    assert.deepEqual(out.spec.template.metadata?.labels, { 'org.example/team': 'ml' });
  });
  it('non-Job objects only get metadata labels', () => {
    const deployment: Workload = {
      kind: 'Deployment',
      metadata: {},
      spec: { template: { metadata: { labels: { a: 'b' } } } },
    };
    const out = withPropagatedLabels(parent, config, deployment);
    assert.deepEqual(out.metadata.labels, { 'org.example/team': 'ml' });
    assert.deepEqual(out.spec.template.metadata?.labels, { a: 'b' });
  });
});
