// What a rendered chart must satisfy, as functions returning every problem found (empty = fine), so the test
// can both assert a render is clean and show that each check catches the breakage it is for.

import type { TestCluster } from '@modelplane/apiserver/testing';
import {
  type EffectiveGrants,
  effectiveGrants,
  type Manifest,
  ofKind,
  parseModelplaneArgs,
  unionGrants,
} from './chart.ts';
import { schemaErrors } from './k8s-schema.ts';

export const WEBHOOK_SERVICE = 'modelplane-webhook-service';
export const METRICS_SERVICE = 'modelplane-metrics';

const container = (d: Manifest) => d.spec.template.spec.containers[0];
const podLabels = (d: Manifest): Record<string, string> => d.spec.template.metadata.labels ?? {};
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** structure (client-node's API model) and namespace of every object */
export function objectProblems(objects: Manifest[], namespace: string): string[] {
  const out = objects.flatMap((o) => schemaErrors(o));
  const clusterScoped = new Set(['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);
  for (const o of objects) {
    const want = clusterScoped.has(o.kind) ? undefined : namespace;
    if (o.metadata.namespace !== want)
      out.push(
        `${o.kind} ${o.metadata.name}: metadata.namespace is ${o.metadata.namespace}, expected ${want ?? 'none (cluster-scoped)'}`,
      );
  }
  return out;
}

/**
 * Each Deployment's ServiceAccount gets exactly the grants `modelplane rbac` (`printed`, for the same namespace)
 * gives the controller sets its args run; and no Role or binding is left over for anything else.
 */
export function rbacProblems(objects: Manifest[], namespace: string, printed: Manifest[]): string[] {
  const out: string[] = [];
  const accounts = new Set<string>();
  for (const d of ofKind(objects, 'Deployment')) {
    const sa = d.spec.template.spec.serviceAccountName as string;
    accounts.add(sa);
    if (!objects.some((o) => o.kind === 'ServiceAccount' && o.metadata.name === sa))
      out.push(`Deployment ${d.metadata.name}: ServiceAccount ${sa} is not in the chart`);
    let sets: string[];
    try {
      sets = parseModelplaneArgs(container(d).args).sets;
    } catch (err) {
      out.push(`Deployment ${d.metadata.name}: ${(err as Error).message}`);
      continue;
    }
    const want: EffectiveGrants = unionGrants(sets.map((s) => effectiveGrants(printed, namespace, `modelplane-${s}`)));
    if (want.cluster.length === 0)
      out.push(`Deployment ${d.metadata.name}: modelplane rbac grants its sets ${sets.join(',')} nothing`);
    const got = effectiveGrants(objects, namespace, sa);
    for (const scope of ['cluster', 'namespace'] as const) {
      const missing = want[scope].filter((g) => !got[scope].includes(g));
      const extra = got[scope].filter((g) => !want[scope].includes(g));
      if (missing.length)
        out.push(`${sa} (runs ${sets.join(',')}): ${scope} grants missing vs modelplane rbac: ${missing.join('; ')}`);
      if (extra.length)
        out.push(`${sa} (runs ${sets.join(',')}): ${scope} grants beyond modelplane rbac: ${extra.join('; ')}`);
    }
  }
  for (const b of [...ofKind(objects, 'ClusterRoleBinding'), ...ofKind(objects, 'RoleBinding')]) {
    for (const s of b.subjects ?? [])
      if (!accounts.has(s.name) || s.namespace !== namespace)
        out.push(`${b.kind} ${b.metadata.name}: binds ${s.namespace}/${s.name}, which no Deployment runs as`);
  }
  const bound = new Set(
    [...ofKind(objects, 'ClusterRoleBinding'), ...ofKind(objects, 'RoleBinding')].map(
      (b) => `${b.roleRef.kind}/${b.roleRef.name}`,
    ),
  );
  for (const r of [...ofKind(objects, 'ClusterRole'), ...ofKind(objects, 'Role')])
    if (!bound.has(`${r.kind}/${r.metadata.name}`)) out.push(`${r.kind} ${r.metadata.name}: bound to nothing`);
  return out;
}

function portNumber(d: Manifest, port: string | number): number | undefined {
  if (typeof port === 'number') return port;
  return container(d).ports?.find((p: { name?: string }) => p.name === port)?.containerPort;
}

/** args parse as modelplane's; ports, probes, env and Services agree with them */
export function wiringProblems(objects: Manifest[], env: Record<string, string>): string[] {
  const out: string[] = [];
  const deployments = ofKind(objects, 'Deployment');
  const parsed = new Map<Manifest, Record<string, unknown>>();
  for (const d of deployments) {
    const name = d.metadata.name;
    const c = container(d);
    if (!selects(d.spec.selector.matchLabels, podLabels(d)))
      out.push(`Deployment ${name}: spec.selector does not select its own pod template`);
    let opts: Record<string, unknown>;
    try {
      opts = parseModelplaneArgs(c.args).opts;
    } catch (err) {
      out.push(`Deployment ${name}: args ${JSON.stringify(c.args)}: ${(err as Error).message}`);
      continue;
    }
    parsed.set(d, opts);
    const httpPort = Number(opts.httpPort);
    if (portNumber(d, 'metrics') !== httpPort)
      out.push(
        `Deployment ${name}: container port "metrics" is ${portNumber(d, 'metrics')}, but --http-port is ${httpPort}`,
      );
    for (const [probe, path] of [
      ['startupProbe', '/healthz'],
      ['livenessProbe', '/healthz'],
      ['readinessProbe', '/readyz'],
    ] as const) {
      const get = c[probe]?.httpGet;
      if (!get || get.path !== path || portNumber(d, get.port) !== httpPort)
        out.push(`Deployment ${name}: ${probe} must GET ${path} on --http-port ${httpPort}, is ${JSON.stringify(get)}`);
    }
    const podNamespace = c.env?.find((e: { name: string }) => e.name === 'POD_NAMESPACE');
    if (podNamespace?.valueFrom?.fieldRef?.fieldPath !== 'metadata.namespace')
      out.push(`Deployment ${name}: env POD_NAMESPACE must come from metadata.namespace`);
    for (const [key, value] of Object.entries(env)) {
      const got = c.env?.find((e: { name: string }) => e.name === key)?.value;
      if (got !== value) out.push(`Deployment ${name}: env ${key} is ${got}, expected ${value}`);
    }
    const webhookPort = opts.webhookPort === undefined ? undefined : Number(opts.webhookPort);
    const isWebhooks = c.args.includes('--controllers=webhooks');
    if (isWebhooks && portNumber(d, 'webhook') !== webhookPort)
      out.push(
        `Deployment ${name}: container port "webhook" is ${portNumber(d, 'webhook')}, but --webhook-port is ${webhookPort}`,
      );
  }
  const webhooks = deployments.filter((d) => container(d).args.includes('--controllers=webhooks'));
  const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === WEBHOOK_SERVICE);
  if (webhooks.length > 0 && !svc) out.push(`Service ${WEBHOOK_SERVICE} missing though the webhooks run`);
  if (svc) {
    const selected = deployments.filter((d) => selects(svc.spec.selector, podLabels(d)));
    if (selected.length !== 1 || !webhooks.includes(selected[0]!))
      out.push(
        `Service ${WEBHOOK_SERVICE}: selects ${selected.map((d) => d.metadata.name).join(',') || 'nothing'}, expected the webhooks Deployment only`,
      );
    const port = svc.spec.ports?.find((p: { port: number }) => p.port === 443);
    if (!port) out.push(`Service ${WEBHOOK_SERVICE}: no port 443`);
    for (const d of selected) {
      const args = parsed.get(d);
      if (port && args && portNumber(d, port.targetPort) !== Number(args.webhookPort))
        out.push(
          `Service ${WEBHOOK_SERVICE}: port 443 targets ${port.targetPort} (${portNumber(d, port.targetPort)}), not --webhook-port ${args.webhookPort}`,
        );
    }
  }
  const metrics = objects.find((o) => o.kind === 'Service' && o.metadata.name === METRICS_SERVICE);
  if (metrics) {
    for (const d of deployments) {
      if (!selects(metrics.spec.selector, podLabels(d)))
        out.push(`Service ${METRICS_SERVICE}: does not select Deployment ${d.metadata.name}`);
      const target = metrics.spec.ports?.[0]?.targetPort;
      const args = parsed.get(d);
      if (args && portNumber(d, target) !== Number(args.httpPort))
        out.push(`Service ${METRICS_SERVICE}: targetPort ${target} is not --http-port of ${d.metadata.name}`);
    }
  }
  return out;
}

/**
 * The chart's own bar beyond Pod Security Standards (which the API server's PodSecurity admission checks, see
 * podSecurityWarnings): a read-only root filesystem with an emptyDir at /tmp, where tsx keeps its compile
 * cache (without a writable os.tmpdir() the process hangs at startup).
 */
export function securityProblems(objects: Manifest[]): string[] {
  return ofKind(objects, 'Deployment').flatMap((d) => {
    const spec = d.spec.template.spec;
    const out: string[] = [];
    const emptyDirs = new Set(
      (spec.volumes ?? []).filter((v: { emptyDir?: unknown }) => v.emptyDir).map((v: { name: string }) => v.name),
    );
    for (const c of spec.containers) {
      if (c.securityContext?.readOnlyRootFilesystem !== true)
        out.push(
          `Deployment ${d.metadata.name}: container ${c.name}: securityContext.readOnlyRootFilesystem must be true`,
        );
      if (
        !(c.volumeMounts ?? []).some(
          (m: { mountPath: string; name: string; readOnly?: boolean }) =>
            m.mountPath === '/tmp' && emptyDirs.has(m.name) && !m.readOnly,
        )
      ) {
        out.push(`Deployment ${d.metadata.name}: container ${c.name}: needs a writable emptyDir mounted at /tmp`);
      }
    }
    return out;
  });
}

/**
 * What the API server's PodSecurity admission says about the Deployments' pod templates: a server-side dry
 * run into `namespace`, whose pod-security.kubernetes.io/warn label sets the level; one line per warning.
 */
export async function podSecurityWarnings(
  objects: Manifest[],
  namespace: string,
  kubectl: TestCluster['kubectl'],
): Promise<string[]> {
  const deployments = ofKind(objects, 'Deployment').map((d) => ({ ...d, metadata: { ...d.metadata, namespace } }));
  const r = await kubectl(['create', '--dry-run=server', '-o', 'name', '-f', '-'], {
    input: deployments.map((d) => JSON.stringify(d)).join('\n'),
  });
  if (r.code !== 0) throw new Error(`dry-run create of the Deployments failed: ${r.stderr}`);
  return r.stderr.split('\n').filter((l) => l.includes('would violate PodSecurity'));
}
