// The controller-set registry and the RBAC generated from the sets' declared rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeRules, rbacObjects, rule } from '../../src/controllers/rbac.ts';
import { type ControllerSet, selectControllerSets } from '../../src/controllers/registry.ts';

const set = (name: string): ControllerSet => ({ name, description: name, register: async () => undefined, rules: [] });
const sets = [set('aim'), set('kubeairunway-core'), set('llamastack')];

describe('selectControllerSets', () => {
  const cases: Array<[string | undefined, string[] | RegExp]> = [
    [undefined, ['aim', 'kubeairunway-core', 'llamastack']],
    ['', ['aim', 'kubeairunway-core', 'llamastack']],
    ['all', ['aim', 'kubeairunway-core', 'llamastack']],
    ['llamastack, aim', ['aim', 'llamastack']],
    ['aim,,aim', ['aim']],
    ['aim,nope', /unknown controller "nope" in --controllers: known ones are aim, kubeairunway-core, llamastack/],
    ['x,y', /unknown controllers "x", "y"/],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} → ${want}`, () => {
      if (want instanceof RegExp) assert.throws(() => selectControllerSets(sets, input), want);
      else
        assert.deepEqual(
          selectControllerSets(sets, input).map((s) => s.name),
          want,
        );
    });
  }
});

describe('normalizeRules', () => {
  it('merges verbs per resource, groups resources with equal verbs, and sorts', () => {
    const out = normalizeRules([
      rule('aim.eai.amd.com', ['aimservices'], ['get', 'list', 'watch']),
      rule('aim.eai.amd.com', ['aimservices/status'], ['patch']),
      rule('aim.eai.amd.com', ['aimmodels'], ['watch', 'list', 'get']),
      rule('', ['configmaps'], ['get']),
      rule('', ['configmaps'], ['create']),
    ]);
    assert.deepEqual(out, [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create'] },
      { apiGroups: ['aim.eai.amd.com'], resources: ['aimmodels', 'aimservices'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['aim.eai.amd.com'], resources: ['aimservices/status'], verbs: ['patch'] },
    ]);
  });

  it('keeps rules limited to resourceNames apart', () => {
    const out = normalizeRules([
      { ...rule('', ['secrets'], ['get']), resourceNames: ['certs'] },
      rule('', ['secrets'], ['create']),
    ]);
    assert.equal(out.length, 2);
    assert.deepEqual(out.find((r) => r.resourceNames)?.resourceNames, ['certs']);
  });
});

describe('rbacObjects', () => {
  it('gives each set a ServiceAccount, a ClusterRole with events, and a leader-election Role, all bound', () => {
    const objs = rbacObjects(
      { name: 'aim', rules: [rule('aim.eai.amd.com', ['aimservices'], ['get'])] },
      'modelplane-system',
    );
    assert.deepEqual(
      objs.map((o) => `${o.kind}/${(o.metadata as { name: string }).name}`),
      [
        'ServiceAccount/modelplane-aim',
        'ClusterRole/modelplane-aim',
        'ClusterRoleBinding/modelplane-aim',
        'Role/modelplane-aim-leader-election',
        'RoleBinding/modelplane-aim-leader-election',
      ],
    );
    const role = objs[1] as { rules: Array<{ apiGroups: string[]; resources: string[] }> };
    assert.ok(role.rules.some((r) => r.apiGroups[0] === 'events.k8s.io' && r.resources.includes('events')));
    assert.ok(role.rules.some((r) => r.apiGroups[0] === 'aim.eai.amd.com'));
    const binding = objs[2] as { subjects: Array<{ name: string; namespace: string }> };
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'modelplane-aim', namespace: 'modelplane-system' },
    ]);
  });
});

describe('no process may enumerate Secrets', () => {
  it('no ClusterRole of `modelplane rbac` grants list on secrets; only aim may watch them (pinned by name)', async () => {
    const { rbacYaml } = await import('../../src/cli/rbac.ts');
    const { parseAllDocuments } = await import('yaml');
    const roles = parseAllDocuments(rbacYaml())
      .map((d) => d.toJSON() as { kind: string; metadata: { name: string }; rules?: any[] })
      .filter((o) => o?.kind === 'ClusterRole');
    assert.ok(
      roles.some((r) => r.metadata.name === 'modelplane-llamastack'),
      'the llamastack set has a ClusterRole',
    );
    // the aim set watches each Secret an AIM object names by fieldSelector metadata.name (RBAC cannot narrow
    // a watch to names chosen at run time); aim-process-rbac.integration.test.ts checks it never does more
    const watching: string[] = [];
    for (const r of roles)
      for (const rule of r.rules ?? [])
        if (rule.apiGroups.includes('') && rule.resources.includes('secrets')) {
          assert.deepEqual(
            rule.verbs.filter((v: string) => v === 'list' || v === '*'),
            [],
            `${r.metadata.name} may ${rule.verbs.join(',')} secrets`,
          );
          if (rule.verbs.includes('watch')) watching.push(r.metadata.name);
        }
    assert.deepEqual(watching, ['modelplane-aim']);
  });
});
