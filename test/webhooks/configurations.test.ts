// The generated webhook configurations and CRD conversion stanza (what deploy/ and `modelplane dev` apply),
// the caBundle apply bodies the injector sends, and kube's rule matching that the server re-checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AdmissionRequest,
  buildWebhookConfigurations,
  configurationPatch,
  conversionStanza,
  crdPatch,
  type Route,
  type RuleWithOperations,
  ruleCoversResource,
} from '../../src/webhooks/index.ts';

const rules: RuleWithOperations[] = [
  {
    operations: ['CREATE', 'UPDATE'],
    apiGroups: ['kubeairunway.ai'],
    apiVersions: ['v1alpha1'],
    resources: ['modeldeployments'],
  },
];
const routes: Route[] = [
  {
    type: 'mutating',
    path: '/mutate-md',
    spec: { name: 'mmodeldeployment.kubeairunway.ai', rules },
    handler: () => undefined,
  },
  {
    type: 'validating',
    path: '/validate-md',
    spec: {
      name: 'vmodeldeployment.kubeairunway.ai',
      rules,
      failurePolicy: 'Ignore',
      timeoutSeconds: 3,
      objectSelector: { matchLabels: { a: 'b' } },
    },
    handler: () => undefined,
  },
  { type: 'conversion', path: '/convert', spec: { crds: ['x.y.z'] }, handler: (o) => o },
];

describe('buildWebhookConfigurations', () => {
  it('builds one configuration per kind with service references and kube defaults spelled out', () => {
    const [mutating, validating] = buildWebhookConfigurations(routes, {
      name: { mutating: 'md-mutating', validating: 'md-validating' },
      target: { service: { name: 'hooks', namespace: 'sys' } },
    });
    assert.deepEqual(mutating, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'md-mutating' },
      webhooks: [
        {
          name: 'mmodeldeployment.kubeairunway.ai',
          clientConfig: { service: { name: 'hooks', namespace: 'sys', path: '/mutate-md' } },
          rules: [{ ...rules[0], scope: '*' }],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 10,
          matchPolicy: 'Equivalent',
          reinvocationPolicy: 'Never',
        },
      ],
    });
    const hook = (validating!.webhooks as any[])[0];
    assert.equal(validating!.metadata.name, 'md-validating');
    assert.deepEqual(
      [hook.failurePolicy, hook.timeoutSeconds, hook.objectSelector, hook.reinvocationPolicy],
      ['Ignore', 3, { matchLabels: { a: 'b' } }, undefined],
    );
  });

  it('uses a URL target with the path appended, a non-default Service port, and a caBundle when given', () => {
    const [m] = buildWebhookConfigurations(routes, {
      name: 'both',
      target: { url: 'https://127.0.0.1:9443/' },
      caBundle: 'Q0E=',
    });
    assert.deepEqual((m!.webhooks as any[])[0].clientConfig, {
      url: 'https://127.0.0.1:9443/mutate-md',
      caBundle: 'Q0E=',
    });
    const [s] = buildWebhookConfigurations(routes, {
      name: 'both',
      target: { service: { name: 'h', namespace: 'n', port: 8443 } },
    });
    assert.deepEqual((s!.webhooks as any[])[0].clientConfig, {
      service: { name: 'h', namespace: 'n', path: '/mutate-md', port: 8443 },
    });
  });

  it('builds nothing for a kind with no registrations', () => {
    assert.deepEqual(buildWebhookConfigurations([routes[2]!], { name: 'x', target: { url: 'https://h' } }), []);
  });

  it('builds the conversion stanza of a CRD', () => {
    assert.deepEqual(conversionStanza('/convert', { service: { name: 'h', namespace: 'n' } }), {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'h', namespace: 'n', path: '/convert' } },
      },
    });
  });
});

describe('caBundle apply bodies', () => {
  const config = (bundles: Array<string | undefined>) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'c', resourceVersion: '5', managedFields: [] },
    webhooks: bundles.map((b, i) => ({
      name: `w${i}.a.b`,
      sideEffects: 'None',
      clientConfig: { service: { name: 's', namespace: 'n' }, ...(b ? { caBundle: b } : {}) },
    })),
  });

  it('sends caBundle for every entry (apply would drop the ones left out), and nothing when all are current', () => {
    assert.deepEqual(configurationPatch(config(['NEW', undefined]), 'NEW'), {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'c' },
      webhooks: [
        { name: 'w0.a.b', clientConfig: { caBundle: 'NEW' } },
        { name: 'w1.a.b', clientConfig: { caBundle: 'NEW' } },
      ],
    });
    assert.equal(configurationPatch(config(['NEW', 'NEW']), 'NEW'), undefined);
    assert.equal(configurationPatch(config([]), 'NEW'), undefined);
  });

  it('touches a CRD only when it converts by webhook and its bundle differs', () => {
    const crd = (conversion: unknown) =>
      ({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'x.y.z' },
        spec: { conversion },
      }) as any;
    assert.equal(crdPatch(crd({ strategy: 'None' }), 'B'), undefined);
    assert.equal(
      crdPatch(crd({ strategy: 'Webhook', webhook: { clientConfig: { url: 'https://h', caBundle: 'B' } } }), 'B'),
      undefined,
    );
    assert.deepEqual(crdPatch(crd({ strategy: 'Webhook', webhook: { clientConfig: { url: 'https://h' } } }), 'B'), {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x.y.z' },
      spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: 'B' } } } },
    });
  });
});

describe('ruleCoversResource', () => {
  const req = (
    resource: string,
    subResource?: string,
    namespace?: string,
  ): Pick<AdmissionRequest, 'resource' | 'subResource' | 'namespace'> => ({
    resource: { group: 'apps', version: 'v1', resource },
    ...(subResource ? { subResource } : {}),
    ...(namespace ? { namespace } : {}),
  });
  const rule = (resources: string[], scope?: RuleWithOperations['scope']): RuleWithOperations => ({
    operations: ['*'],
    apiGroups: ['apps'],
    apiVersions: ['v1'],
    resources,
    ...(scope ? { scope } : {}),
  });
  const table: Array<[string[], ReturnType<typeof req>, boolean, RuleWithOperations['scope']?]> = [
    [['deployments'], req('deployments'), true],
    [['deployments'], req('deployments', 'scale'), false],
    [['deployments/scale'], req('deployments', 'scale'), true],
    [['deployments/*'], req('deployments', 'status'), true],
    // kube's matcher: `*` as the subresource also matches none, so r/* covers r itself
    [['deployments/*'], req('deployments'), true],
    [['*'], req('statefulsets'), true],
    [['*'], req('statefulsets', 'status'), false],
    [['*/status'], req('statefulsets', 'status'), true],
    [['*/*'], req('statefulsets', 'scale'), true],
    [['deployments'], req('deployments', undefined, 'ns'), false, 'Cluster'],
    [['deployments'], req('deployments'), false, 'Namespaced'],
    [['deployments'], req('deployments', undefined, 'ns'), true, 'Namespaced'],
  ];
  for (const [resources, r, want, scope] of table) {
    it(`${resources.join(',')}${scope ? ` (${scope})` : ''} ${want ? 'covers' : 'does not cover'} ${r.resource.resource}${r.subResource ? `/${r.subResource}` : ''}${r.namespace ? ' in a namespace' : ''}`, () => {
      assert.equal(ruleCoversResource(rule(resources, scope), r), want);
    });
  }
  it('checks group and version, with * wildcards', () => {
    assert.equal(ruleCoversResource({ ...rule(['deployments']), apiGroups: [''] }, req('deployments')), false);
    assert.equal(
      ruleCoversResource({ ...rule(['deployments']), apiGroups: ['*'], apiVersions: ['*'] }, req('deployments')),
      true,
    );
  });
});
