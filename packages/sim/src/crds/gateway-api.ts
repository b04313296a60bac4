// Gateway API (gateway.networking.k8s.io, standard channel): GatewayClass, Gateway, HTTPRoute and
// ReferenceGrant. v1 is stored; v1beta1 is still served with the same schema, as upstream does. The
// defaults the real CRDs declare (parentRef group/kind, backendRef kind/weight, the catch-all rule, the
// "Waiting for controller" status) are kept, because controllers compare against defaulted objects.

import {
  age,
  arr,
  type CrdVersion,
  conditionColumn,
  conditions,
  crd,
  int32,
  labelSelector,
  obj,
  open,
  type Schema,
  str,
  stringMap,
  strings,
} from './schema.ts';

const GROUP = 'gateway.networking.k8s.io';
// kube-apiserver refuses a CRD of a *.k8s.io group without `api-approved.kubernetes.io` (the Kubernetes API
// review's approval); the published Gateway API CRDs carry it (docs/real-kubernetes.md)
const BUNDLE = {
  'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api/pull/3328',
  'gateway.networking.k8s.io/bundle-version': 'v1.4.1',
  'gateway.networking.k8s.io/channel': 'standard',
};

const pendingConditions = (...types: string[]) =>
  types.map((type) => ({
    type,
    status: 'Unknown',
    reason: 'Pending',
    message: 'Waiting for controller',
    lastTransitionTime: '1970-01-01T00:00:00Z',
  }));

export const parentReference = (): Schema =>
  obj(
    {
      group: str({ default: GROUP }),
      kind: str({ default: 'Gateway' }),
      namespace: str(),
      name: str(),
      sectionName: str(),
      port: int32(),
    },
    { required: ['name'] },
  );

const backendRef = (): Schema =>
  open(
    {
      group: str({ default: '' }),
      kind: str({ default: 'Service' }),
      name: str(),
      namespace: str(),
      port: int32(),
      weight: int32({ default: 1 }),
      filters: arr(open()),
    },
    { required: ['name'] },
  );

const httpRouteRule = (): Schema =>
  open({
    name: str(),
    matches: arr(open({ path: obj({ type: str({ default: 'PathPrefix' }), value: str({ default: '/' }) }) }), {
      default: [{ path: { type: 'PathPrefix', value: '/' } }],
    }),
    filters: arr(open()),
    backendRefs: arr(backendRef()),
    timeouts: obj({ request: str(), backendRequest: str() }),
  });

const routeParentStatus = (): Schema =>
  obj(
    { parentRef: parentReference(), controllerName: str(), conditions: conditions() },
    { required: ['parentRef', 'controllerName'] },
  );

function servedVersions(base: Omit<CrdVersion, 'name' | 'storage'>): CrdVersion[] {
  return [
    { ...base, name: 'v1', storage: true },
    { ...base, name: 'v1beta1', storage: false },
  ];
}

export function gatewayClassCrd() {
  return crd({
    group: GROUP,
    kind: 'GatewayClass',
    plural: 'gatewayclasses',
    shortNames: ['gc'],
    categories: ['gateway-api'],
    scope: 'Cluster',
    annotations: BUNDLE,
    versions: servedVersions({
      properties: {
        spec: obj(
          { controllerName: str(), description: str(), parametersRef: open() },
          { required: ['controllerName'] },
        ),
        status: obj(
          { conditions: conditions(), supportedFeatures: arr(obj({ name: str() }, { required: ['name'] })) },
          { default: { conditions: pendingConditions('Accepted') } },
        ),
      },
      required: ['spec'],
      columns: [
        { name: 'Controller', type: 'string', jsonPath: '.spec.controllerName' },
        conditionColumn('Accepted'),
        age(),
        { name: 'Description', type: 'string', jsonPath: '.spec.description', priority: 1 },
      ],
    }),
  });
}

export function gatewayCrd() {
  const listener = obj(
    {
      name: str(),
      hostname: str(),
      port: int32(),
      protocol: str(),
      tls: open(),
      allowedRoutes: obj(
        {
          namespaces: obj({ from: str({ default: 'Same' }), selector: labelSelector() }, { default: { from: 'Same' } }),
          kinds: arr(obj({ group: str(), kind: str() }, { required: ['kind'] })),
        },
        { default: { namespaces: { from: 'Same' } } },
      ),
    },
    { required: ['name', 'port', 'protocol'] },
  );
  return crd({
    group: GROUP,
    kind: 'Gateway',
    plural: 'gateways',
    shortNames: ['gtw'],
    categories: ['gateway-api'],
    scope: 'Namespaced',
    annotations: BUNDLE,
    versions: servedVersions({
      properties: {
        spec: obj(
          {
            gatewayClassName: str(),
            listeners: arr(listener),
            addresses: arr(obj({ type: str({ default: 'IPAddress' }), value: str() })),
            infrastructure: open({ labels: stringMap(), annotations: stringMap() }),
          },
          { required: ['gatewayClassName', 'listeners'] },
        ),
        status: obj(
          {
            addresses: arr(obj({ type: str(), value: str() })),
            conditions: conditions(),
            listeners: arr(
              obj(
                {
                  name: str(),
                  supportedKinds: arr(obj({ group: str(), kind: str() })),
                  attachedRoutes: int32(),
                  conditions: conditions(),
                },
                { required: ['name'] },
              ),
            ),
          },
          { default: { conditions: pendingConditions('Accepted', 'Programmed') } },
        ),
      },
      required: ['spec'],
      columns: [
        { name: 'Class', type: 'string', jsonPath: '.spec.gatewayClassName' },
        { name: 'Address', type: 'string', jsonPath: '.status.addresses[*].value' },
        conditionColumn('Programmed'),
        age(),
      ],
    }),
  });
}

export function httpRouteCrd() {
  return crd({
    group: GROUP,
    kind: 'HTTPRoute',
    plural: 'httproutes',
    categories: ['gateway-api'],
    scope: 'Namespaced',
    annotations: BUNDLE,
    versions: servedVersions({
      properties: {
        spec: obj({
          parentRefs: arr(parentReference()),
          hostnames: strings(),
          rules: arr(httpRouteRule(), { default: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }] }),
        }),
        status: obj({ parents: arr(routeParentStatus()) }),
      },
      required: ['spec'],
      columns: [{ name: 'Hostnames', type: 'string', jsonPath: '.spec.hostnames' }, age()],
    }),
  });
}

export function referenceGrantCrd() {
  return crd({
    group: GROUP,
    kind: 'ReferenceGrant',
    plural: 'referencegrants',
    shortNames: ['refgrant'],
    categories: ['gateway-api'],
    scope: 'Namespaced',
    annotations: BUNDLE,
    versions: [
      {
        name: 'v1beta1',
        storage: true,
        statusSubresource: false,
        properties: {
          spec: obj({
            from: arr(
              obj({ group: str(), kind: str(), namespace: str() }, { required: ['group', 'kind', 'namespace'] }),
            ),
            to: arr(obj({ group: str(), kind: str(), name: str() }, { required: ['group', 'kind'] })),
          }),
        },
        columns: [age()],
      },
    ],
  });
}
