// The recorded sequence, part 2: a CRD's schema, CEL, defaulting and pruning errors, admission webhooks,
// finalizers and garbage collection, RBAC denials, Table output, and the kubectl commands users type.
import { raw } from '@modelplane/apiserver/testing';
import { NS } from './sequence-core.ts';
import { answers, http, kubectl, type Step, type Target, wait } from './steps.ts';

export const GROUP = 'fidelity.example.com';
const widgets = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const cms = `/api/v1/namespaces/${NS}/configmaps`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const widget = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, namespace: NS },
  spec,
  ...extra,
});
const cm = (name: string, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...metadata },
  data: { a: '1' },
});
const table = (b: any) =>
  b?.kind === 'Table'
    ? {
        columns: b.columnDefinitions?.map((c: any) => `${c.name}:${c.type}:${c.format}:${c.priority}`),
        rows: b.rows?.map((r: any) => r.cells),
      }
    : b;

export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10 },
                  mode: { type: 'string', enum: ['small', 'big'], default: 'small' },
                  name: { type: 'string', maxLength: 8, pattern: '^[a-z]+$' },
                  tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
                },
                'x-kubernetes-validations': [
                  {
                    rule: "self.size <= 5 || self.mode == 'big'",
                    message: 'sizes above 5 need mode big',
                    fieldPath: '.mode',
                  },
                  {
                    rule: '!has(self.name) || self.name != "forbidden"',
                    messageExpression: "'name ' + self.name + ' is reserved'",
                  },
                ],
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

async function webhookActive(t: Target): Promise<boolean> {
  const r = await raw(
    t,
    'POST',
    `${cms}?dryRun=All`,
    cm('probe', { labels: { 'fidelity-webhook': 'on', deny: 'true' } }),
  );
  return r.status >= 400 && r.text.includes('fidelity-deny');
}

const webhookConfig = (t: Target, kind: 'Validating' | 'Mutating') => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: `${kind}WebhookConfiguration`,
  metadata: { name: `fidelity-${kind.toLowerCase()}` },
  webhooks: [
    {
      name: `fidelity-${kind === 'Validating' ? 'deny' : 'mutate'}.example.com`,
      clientConfig: {
        url: `${t.webhookUrl}/${kind === 'Validating' ? 'validate' : 'mutate'}`,
        caBundle: Buffer.from(t.webhookCaPem).toString('base64'),
      },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
      objectSelector: { matchLabels: { 'fidelity-webhook': 'on' } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
    },
  ],
});

export const crdSteps: Step[] = [
  http('crd', 'create the Widget CRD', 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGET_CRD, {
    pick: (b) => ({ kind: b.kind, spec: b.spec }),
  }),
  wait('the Widget CRD to be served', answers(widgets, 200)),
  http(
    'crd',
    'invalid CRD (non-structural) → Invalid',
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    {
      ...WIDGET_CRD,
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        ...WIDGET_CRD.spec,
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } },
            },
          },
        ],
      },
    },
  ),
  http('crd', 'create with defaulting', 'POST', widgets, widget('w1', { size: 2 })),
  http(
    'crd',
    'unknown field is pruned (Warn)',
    'POST',
    widgets,
    widget('w2', { size: 2, colour: 'red' }, { extra: true }),
  ),
  http(
    'crd',
    'unknown field under Strict → BadRequest',
    'POST',
    `${widgets}?fieldValidation=Strict`,
    widget('w3', { size: 2, colour: 'red' }),
  ),
  http('crd', 'enum violation', 'POST', widgets, widget('w4', { size: 2, mode: 'huge' })),
  http('crd', 'maximum violation', 'POST', widgets, widget('w4', { size: 11 })),
  http('crd', 'required field missing', 'POST', widgets, widget('w4', {})),
  http('crd', 'wrong type', 'POST', widgets, widget('w4', { size: 'two' })),
  http('crd', 'pattern and maxLength', 'POST', widgets, widget('w4', { size: 1, name: 'ABCDEFGHIJ' })),
  http('crd', 'set list with duplicates', 'POST', widgets, widget('w4', { size: 1, tags: ['a', 'a'] })),
  http('crd', 'CEL rule with fieldPath', 'POST', widgets, widget('w4', { size: 7 })),
  http('crd', 'CEL messageExpression', 'POST', widgets, widget('w4', { size: 1, name: 'forbidden' })),
  // kube-openapi visits properties in Go map order (random), so the causes are compared as a set
  http('crd', 'several errors at once', 'POST', widgets, widget('w4', { size: 0, mode: 'x', tags: ['a', 'b', 'c'] }), {
    pick: (b) => ({
      code: b.code,
      reason: b.reason,
      causes: [...(b.details?.causes ?? [])].map((c: any) => `${c.field} ${c.reason} ${c.message}`).sort(),
    }),
  }),
  http(
    'crd',
    'unconditional update of a custom resource → Invalid',
    'PUT',
    `${widgets}/w1/status`,
    widget('w1', { size: 9 }, { status: { phase: 'Ready' } }),
  ),
  http('crd', 'read w1 for its resourceVersion', 'GET', `${widgets}/w1`, undefined, {
    save: (b, t) => t.saved.set('w1', b.metadata?.resourceVersion ?? ''),
    pick: (b) => b.spec,
  }),
  http(
    'crd',
    'status subresource ignores spec',
    'PUT',
    `${widgets}/w1/status`,
    (t: Target) =>
      widget(
        'w1',
        { size: 9 },
        { metadata: { name: 'w1', namespace: NS, resourceVersion: t.saved.get('w1') }, status: { phase: 'Ready' } },
      ),
    { pick: (b) => ({ spec: b.spec, status: b.status }) },
  ),
  http(
    'crd',
    'main resource ignores status',
    'PATCH',
    `${widgets}/w1`,
    { status: { phase: 'Gone' }, spec: { size: 3 } },
    {
      contentType: 'application/merge-patch+json',
      pick: (b) => ({ spec: b.spec, status: b.status, generation: b.metadata?.generation }),
    },
  ),
  http(
    'crd',
    'merge patch breaking a CEL rule',
    'PATCH',
    `${widgets}/w1`,
    { spec: { size: 8 } },
    { contentType: 'application/merge-patch+json' },
  ),
  http(
    'crd',
    'strategic merge patch on a custom resource → UnsupportedMediaType',
    'PATCH',
    `${widgets}/w1`,
    { spec: {} },
    { contentType: 'application/strategic-merge-patch+json' },
  ),
  http('table', 'widgets as a Table', 'GET', widgets, undefined, { accept: TABLE, pick: table }),
  http('table', 'configmaps as a Table', 'GET', `${cms}?labelSelector=page%3Dyes`, undefined, {
    accept: TABLE,
    pick: table,
  }),
  http('table', 'deployments as a Table', 'GET', `/apis/apps/v1/namespaces/${NS}/deployments`, undefined, {
    accept: TABLE,
    pick: table,
  }),
  http('table', 'PartialObjectMetadataList', 'GET', `${cms}?labelSelector=page%3Dyes`, undefined, {
    accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    pick: (b) => ({
      kind: b.kind,
      apiVersion: b.apiVersion,
      items: b.items?.map((i: any) => ({ kind: i.kind, name: i.metadata?.name, hasData: 'data' in i })),
    }),
  }),
];

export const admissionSteps: Step[] = [
  http(
    'webhook',
    'create a validating webhook',
    'POST',
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    (t: Target) => webhookConfig(t, 'Validating'),
    { pick: (b) => b.kind },
  ),
  http(
    'webhook',
    'create a mutating webhook',
    'POST',
    '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    (t: Target) => webhookConfig(t, 'Mutating'),
    { pick: (b) => b.kind },
  ),
  wait('the webhooks to be called', webhookActive),
  http(
    'webhook',
    'denied by the validating webhook',
    'POST',
    cms,
    cm('denied', { labels: { 'fidelity-webhook': 'on', deny: 'true' } }),
  ),
  http(
    'webhook',
    'mutated by the mutating webhook',
    'POST',
    cms,
    cm('mutated', { labels: { 'fidelity-webhook': 'on' } }),
    { pick: (b) => b.metadata?.labels },
  ),
  http(
    'webhook',
    'objects outside the selector are not sent',
    'POST',
    cms,
    cm('unlabelled', { labels: { deny: 'true' } }),
    { pick: (b) => b.metadata?.labels },
  ),
];

export const lifecycleSteps: Step[] = [
  http('finalizers', 'create with a finalizer', 'POST', cms, cm('held', { finalizers: ['example.com/hold'] }), {
    pick: (b) => b.metadata?.finalizers,
  }),
  http('finalizers', 'delete marks it', 'DELETE', `${cms}/held`, undefined, {
    pick: (b) => ({
      kind: b.kind,
      deleting: Boolean(b.metadata?.deletionTimestamp),
      finalizers: b.metadata?.finalizers,
      status: b.status,
    }),
  }),
  http(
    'finalizers',
    'adding a finalizer while deleting → Forbidden',
    'PATCH',
    `${cms}/held`,
    { metadata: { finalizers: ['example.com/hold', 'example.com/new'] } },
    { contentType: 'application/merge-patch+json' },
  ),
  http(
    'finalizers',
    'removing the finalizer deletes it',
    'PATCH',
    `${cms}/held`,
    { metadata: { finalizers: null } },
    {
      contentType: 'application/merge-patch+json',
      pick: (b) => ({ deleting: Boolean(b.metadata?.deletionTimestamp), finalizers: b.metadata?.finalizers ?? null }),
    },
  ),
  http('finalizers', 'gone', 'GET', `${cms}/held`),
  http('gc', 'create an owner', 'POST', cms, cm('owner'), {
    save: (b, t) => t.saved.set('owner', b.metadata?.uid),
    pick: (b) => b.metadata?.name,
  }),
  http(
    'gc',
    'create its dependent',
    'POST',
    cms,
    (t: Target) =>
      cm('dependent', {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: t.saved.get('owner') }],
      }),
    { pick: (b) => b.metadata?.ownerReferences },
  ),
  http(
    'gc',
    'ownerReference without uid → Invalid',
    'POST',
    cms,
    cm('orphan', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '' }] }),
  ),
  http('gc', 'delete the owner (background)', 'DELETE', `${cms}/owner?propagationPolicy=Background`, undefined, {
    pick: (b) => ({ kind: b.kind, status: b.status, details: b.details }),
  }),
  wait('the dependent to be collected', answers(`${cms}/dependent`, 404)),
  http('gc', 'create a foreground owner', 'POST', cms, cm('fg-owner'), {
    save: (b, t) => t.saved.set('fg', b.metadata?.uid),
    pick: (b) => b.metadata?.name,
  }),
  http(
    'gc',
    'create a blocking dependent',
    'POST',
    cms,
    (t: Target) =>
      cm('fg-dependent', {
        finalizers: ['example.com/hold'],
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'fg-owner', uid: t.saved.get('fg'), blockOwnerDeletion: true },
        ],
      }),
    { pick: (b) => b.metadata?.name },
  ),
  http('gc', 'delete the owner (foreground)', 'DELETE', `${cms}/fg-owner?propagationPolicy=Foreground`, undefined, {
    pick: (b) => ({
      kind: b.kind,
      finalizers: b.metadata?.finalizers,
      deleting: Boolean(b.metadata?.deletionTimestamp),
    }),
  }),
  wait('the dependent to be marked for deletion', async (t) =>
    Boolean((await raw(t, 'GET', `${cms}/fg-dependent`)).json().metadata?.deletionTimestamp),
  ),
  http('gc', 'the owner waits for its dependent', 'GET', `${cms}/fg-owner`, undefined, {
    pick: (b) => ({ finalizers: b.metadata?.finalizers, deleting: Boolean(b.metadata?.deletionTimestamp) }),
  }),
  http(
    'gc',
    'release the dependent',
    'PATCH',
    `${cms}/fg-dependent`,
    { metadata: { finalizers: null } },
    { contentType: 'application/merge-patch+json', pick: (b) => b.metadata?.name },
  ),
  wait('the foreground owner to go', answers(`${cms}/fg-owner`, 404)),
];

const as = (user: string, groups: string[] = []) => ({
  headers: { 'Impersonate-User': user, ...(groups.length ? { 'Impersonate-Group': groups.join(',') } : {}) },
});
export const rbacSteps: Step[] = [
  http(
    'rbac',
    'list secrets as a user with no role → Forbidden',
    'GET',
    `/api/v1/namespaces/${NS}/secrets`,
    undefined,
    as('bob'),
  ),
  http(
    'rbac',
    'create as a ServiceAccount → Forbidden',
    'POST',
    cms,
    cm('sa-made'),
    as(`system:serviceaccount:${NS}:default`, [
      'system:serviceaccounts',
      `system:serviceaccounts:${NS}`,
      'system:authenticated',
    ]),
  ),
  http(
    'rbac',
    'grant bob configmap reads',
    'POST',
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    },
    { pick: (b) => b.rules },
  ),
  http(
    'rbac',
    'bind it',
    'POST',
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bob-reads' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
    },
    { pick: (b) => b.subjects },
  ),
  wait(
    'the binding to take effect',
    async (t) => (await raw(t, 'GET', `${cms}/page-1`, undefined, as('bob'))).status === 200,
  ),
  http('rbac', 'bob reads a configmap', 'GET', `${cms}/page-1`, undefined, {
    ...as('bob'),
    pick: (b) => b.metadata?.name ?? b,
  }),
  http('rbac', 'bob cannot delete it', 'DELETE', `${cms}/page-1`, undefined, as('bob')),
  http(
    'rbac',
    'bob cannot grant himself more (escalation)',
    'POST',
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'bob-admin' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    },
    as('bob'),
  ),
  http(
    'rbac',
    'SelfSubjectAccessReview as bob',
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: NS, verb: 'list', resource: 'configmaps' } },
    },
    { ...as('bob'), pick: (b) => b.status },
  ),
  http(
    'rbac',
    'SelfSubjectReview as bob',
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    { ...as('bob'), pick: (b) => b.status },
  ),
];

export const kubectlSteps: Step[] = [
  kubectl(
    'kubectl',
    'apply a List',
    ['apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: ['l1', 'l2'].map((n) => cm(n)) }),
  ),
  kubectl('kubectl', 'get configmaps by label', ['get', 'configmaps', '-n', NS, '-l', 'page=yes']),
  kubectl('kubectl', 'get deployment -o wide', ['get', 'deployment', 'web', '-n', NS, '-o', 'wide']),
  kubectl('kubectl', 'get widgets (printer columns, short name)', ['get', 'wd', '-n', NS]),
  kubectl('kubectl', 'get widgets -o wide (priority columns)', ['get', 'widgets', '-n', NS, '-o', 'wide']),
  kubectl('kubectl', 'get -o jsonpath', [
    'get',
    'configmaps',
    '-n',
    NS,
    '-l',
    'page=yes',
    '-o',
    'jsonpath={range .items[*]}{.metadata.name}={.data.i}{"\\n"}{end}',
  ]),
  kubectl('kubectl', 'get missing', ['get', 'configmap', 'missing', '-n', NS]),
  kubectl('kubectl', 'client-side apply', ['apply', '-f', '-'], JSON.stringify(cm('applied'))),
  kubectl('kubectl', 'client-side apply again is unchanged', ['apply', '-f', '-'], JSON.stringify(cm('applied'))),
  kubectl(
    'kubectl',
    'server-side apply conflict',
    ['apply', '--server-side', '--field-manager=other', '-f', '-'],
    JSON.stringify({ ...cm('applied'), data: { a: '2' } }),
  ),
  kubectl('kubectl', 'apply an invalid widget', ['apply', '-f', '-'], JSON.stringify(widget('bad', { size: 50 }))),
  kubectl(
    'kubectl',
    'apply with an unknown field (strict)',
    ['apply', '-f', '-'],
    JSON.stringify(widget('typo', { size: 1, sise: 2 })),
  ),
  kubectl('kubectl', 'patch --type=json failing', [
    'patch',
    'configmap',
    'applied',
    '-n',
    NS,
    '--type=json',
    '-p',
    '[{"op":"remove","path":"/data/zzz"}]',
  ]),
  kubectl('kubectl', 'label without --overwrite', ['label', 'configmap', 'page-1', '-n', NS, 'page=no']),
  kubectl('kubectl', 'delete missing', ['delete', 'configmap', 'missing', '-n', NS]),
  kubectl('kubectl', 'auth can-i as bob', ['auth', 'can-i', 'delete', 'configmaps', '-n', NS, '--as', 'bob']),
  kubectl('kubectl', 'describe a widget', ['describe', 'widget', 'w1', '-n', NS]),
  kubectl('kubectl', 'explain widget.spec', ['explain', 'widget.spec']),
  kubectl('kubectl', 'wait for a condition that exists', [
    'wait',
    '--for=jsonpath={.status.phase}=Ready',
    'widget/w1',
    '-n',
    NS,
    '--timeout=5s',
  ]),
];
