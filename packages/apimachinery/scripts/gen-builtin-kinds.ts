// Generates src/builtin/kinds.generated.ts: the TypeScript types of the built-in kinds modelplane reads and
// writes (Pod, Deployment, Job, PersistentVolumeClaim, Service, Event, …), in their wire form (timestamps and
// quantities as strings, int-or-string as `number | string`), from the same OpenAPI models the embedded API
// server's field schemas come from (@kubernetes/client-node's generated models: attributeTypeMap for JSON
// names and types, the .d.ts files for which fields are required). Every package uses these types; none
// writes its own Pod.
//
//   npm run gen:builtin-kinds            rewrite the file
//   npm run gen:builtin-kinds -- --check exit 1 when the checked-in file is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';

const OUT = resolve(import.meta.dirname, '../src/builtin/kinds.generated.ts');
const MODELS = join(dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')), 'gen/models');

/** the root kinds: exported name → client-node model, apiVersion, kind */
const ROOTS: ReadonlyArray<readonly [string, string, string, string]> = [
  ['Pod', 'V1Pod', 'v1', 'Pod'],
  ['Service', 'V1Service', 'v1', 'Service'],
  ['ConfigMap', 'V1ConfigMap', 'v1', 'ConfigMap'],
  ['Secret', 'V1Secret', 'v1', 'Secret'],
  ['Namespace', 'V1Namespace', 'v1', 'Namespace'],
  ['Node', 'V1Node', 'v1', 'Node'],
  ['PersistentVolumeClaim', 'V1PersistentVolumeClaim', 'v1', 'PersistentVolumeClaim'],
  ['PersistentVolume', 'V1PersistentVolume', 'v1', 'PersistentVolume'],
  ['ServiceAccount', 'V1ServiceAccount', 'v1', 'ServiceAccount'],
  ['Endpoints', 'V1Endpoints', 'v1', 'Endpoints'],
  ['CoreEvent', 'CoreV1Event', 'v1', 'Event'],
  ['Deployment', 'V1Deployment', 'apps/v1', 'Deployment'],
  ['ReplicaSet', 'V1ReplicaSet', 'apps/v1', 'ReplicaSet'],
  ['StatefulSet', 'V1StatefulSet', 'apps/v1', 'StatefulSet'],
  ['Job', 'V1Job', 'batch/v1', 'Job'],
  ['HorizontalPodAutoscaler', 'V2HorizontalPodAutoscaler', 'autoscaling/v2', 'HorizontalPodAutoscaler'],
  ['Lease', 'V1Lease', 'coordination.k8s.io/v1', 'Lease'],
  ['Event', 'EventsV1Event', 'events.k8s.io/v1', 'Event'],
  ['EndpointSlice', 'V1EndpointSlice', 'discovery.k8s.io/v1', 'EndpointSlice'],
  ['StorageClass', 'V1StorageClass', 'storage.k8s.io/v1', 'StorageClass'],
  ['CustomResourceDefinition', 'V1CustomResourceDefinition', 'apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
  ['Ingress', 'V1Ingress', 'networking.k8s.io/v1', 'Ingress'],
  ['NetworkPolicy', 'V1NetworkPolicy', 'networking.k8s.io/v1', 'NetworkPolicy'],
  ['PodDisruptionBudget', 'V1PodDisruptionBudget', 'policy/v1', 'PodDisruptionBudget'],
  ['Role', 'V1Role', 'rbac.authorization.k8s.io/v1', 'Role'],
  ['ClusterRole', 'V1ClusterRole', 'rbac.authorization.k8s.io/v1', 'ClusterRole'],
  ['RoleBinding', 'V1RoleBinding', 'rbac.authorization.k8s.io/v1', 'RoleBinding'],
  ['ClusterRoleBinding', 'V1ClusterRoleBinding', 'rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
  ['TokenReview', 'V1TokenReview', 'authentication.k8s.io/v1', 'TokenReview'],
  ['SubjectAccessReview', 'V1SubjectAccessReview', 'authorization.k8s.io/v1', 'SubjectAccessReview'],
  [
    'ValidatingWebhookConfiguration',
    'V1ValidatingWebhookConfiguration',
    'admissionregistration.k8s.io/v1',
    'ValidatingWebhookConfiguration',
  ],
  [
    'MutatingWebhookConfiguration',
    'V1MutatingWebhookConfiguration',
    'admissionregistration.k8s.io/v1',
    'MutatingWebhookConfiguration',
  ],
];

/** models the shared metadata types stand for (apimachinery's own ObjectMeta and friends) */
const SHARED: Record<string, string> = {
  V1ObjectMeta: 'ObjectMeta',
  V1ListMeta: 'ListMeta',
  V1OwnerReference: 'OwnerReference',
  V1Condition: 'Condition',
};
/** fields every root kind has from KubeObject */
const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

interface Attr {
  name: string;
  baseName: string;
  type: string;
}
const models = k8s as unknown as Record<string, { attributeTypeMap?: Attr[] } | undefined>;

function attrsOf(model: string): Attr[] {
  const m = models[model]?.attributeTypeMap;
  if (!m) throw new Error(`client-node has no model ${model}`);
  return m;
}

/** the fields the .d.ts declares without `?` */
function requiredOf(model: string): Set<string> {
  const text = readFileSync(join(MODELS, `${model}.d.ts`), 'utf8');
  return new Set([...text.matchAll(/^\s+'([^']+)':/gm)].map((m) => m[1]!));
}

const REFERENCE = /(?<![\w])((?:[A-Z][a-z]+)*V\d\w*)/g;

/** a model's TypeScript name: its version prefix dropped, qualified by its group only where names collide */
function nameOf(model: string, taken: Map<string, string>): string {
  if (SHARED[model]) return SHARED[model];
  const root = ROOTS.find((r) => r[1] === model);
  if (root) return root[0];
  const m = /^([A-Z][a-z]+)?V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)$/.exec(model);
  if (!m) throw new Error(`unexpected model name ${model}`);
  const bare = m[2]!;
  const owner = taken.get(bare);
  if (owner === undefined || owner === model) {
    taken.set(bare, model);
    return bare;
  }
  return `${m[1] ?? 'Core'}${bare}`;
}

function tsType(type: string, refs: Set<string>, names: (m: string) => string): string {
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  if (type === 'Date') return 'string';
  if (type === 'IntOrString') return 'number | string';
  if (type === 'any' || type === 'object') return 'unknown';
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return `Array<${tsType(array[1]!, refs, names)}>`;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return `Record<string, ${tsType(map[1]!, refs, names)}>`;
  if (type.endsWith('MicroTime')) return 'string';
  if (REFERENCE.test(type)) {
    REFERENCE.lastIndex = 0;
    refs.add(type);
    return names(type);
  }
  throw new Error(`unexpected attribute type ${type}`);
}

function generate(): string {
  const taken = new Map<string, string>();
  // name the roots' closure breadth-first so the common names go to the common models
  const order: string[] = [];
  const queue = ROOTS.map((r) => r[1]);
  const seen = new Set<string>(queue);
  while (queue.length > 0) {
    const model = queue.shift()!;
    order.push(model);
    for (const a of attrsOf(model)) {
      for (const ref of a.type.match(REFERENCE) ?? []) {
        if (!seen.has(ref) && !SHARED[ref] && models[ref]?.attributeTypeMap) {
          seen.add(ref);
          queue.push(ref);
        }
      }
    }
  }
  const names = new Map(order.map((m) => [m, nameOf(m, taken)]));
  const nameFor = (m: string) => SHARED[m] ?? names.get(m) ?? m;
  const out: string[] = [
    '// Generated by packages/apimachinery/scripts/gen-builtin-kinds.ts from the Kubernetes OpenAPI models; do',
    '// not edit. The wire form: timestamps and quantities are strings, int-or-string is `number | string`.',
    '',
    "import type { Condition } from '../conditions.ts';",
    "import type { KubeObject, ListMeta, ObjectMeta, OwnerReference } from '../meta.ts';",
    '',
    'export type { Condition, ListMeta, ObjectMeta, OwnerReference };',
    '',
  ];
  for (const model of order) {
    const root = ROOTS.find((r) => r[1] === model);
    const required = requiredOf(model);
    const refs = new Set<string>();
    const fields = attrsOf(model)
      .filter((a) => !(root && ROOT_FIELDS.has(a.baseName)))
      .map((a) => {
        const opt = required.has(a.name) ? '' : '?';
        const key = /^[A-Za-z_$][\w$]*$/.test(a.baseName) ? a.baseName : `'${a.baseName}'`;
        return `  ${key}${opt}: ${tsType(a.type, refs, nameFor)};`;
      });
    const head = root
      ? `/** ${root[2]} ${root[3]} */\nexport interface ${root[0]} extends KubeObject {`
      : `export interface ${nameFor(model)} {`;
    out.push(head, ...fields, '}', '');
  }
  return out.join('\n');
}

const text = generate();
if (process.argv.includes('--check')) {
  const current = readFileSync(OUT, 'utf8');
  if (current !== text) {
    console.error(`${OUT} is out of date: run npm run gen:builtin-kinds`);
    process.exit(1);
  }
} else {
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}`);
}
