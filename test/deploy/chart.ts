// Helpers for the Helm chart tests: the real helm (async, so an in-process API server keeps serving while it
// runs), manifests as objects, RBAC flattened to single grants, and a Deployment's args parsed by the same
// commander definitions `modelplane` uses.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { registerProvider } from '../../src/cli/provider.ts';
import { registerRun } from '../../src/cli/run.ts';
import { providerControllerName } from '../../src/controllers/kubeairunway/provider/names.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../../src/controllers/kubeairunway/providers/index.ts';
import { selectControllerSets } from '../../src/controllers/registry.ts';
import { CONTROLLER_SETS } from '../../src/controllers/sets.ts';

export const HELM = resolve('.tools/bin/helm');
export const CHART_PATH = resolve('deploy/helm/modelplane');

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: any;
};

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ExecResult> {
  return new Promise((done) => {
    execFile(file, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : 1
        : 0;
      done({ code, stdout, stderr });
    });
  });
}

export const helm = (args: string[]) => run(HELM, args);

/** the chart rendered by `helm template`; throws with helm's message when rendering fails */
export async function renderChart(
  namespace: string,
  values: string[] = [],
): Promise<{ yaml: string; objects: Manifest[] }> {
  const r = await helm(['template', 'modelplane', CHART_PATH, '--namespace', namespace, ...values]);
  if (r.code !== 0) throw new Error(`helm template ${values.join(' ')} failed: ${r.stderr}`);
  return { yaml: r.stdout, objects: parseManifests(r.stdout) };
}

export function parseManifests(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`invalid YAML: ${d.errors[0]!.message}`);
      return d.toJS() as Manifest | null;
    })
    .filter((o): o is Manifest => o !== null);
}

export const ofKind = (objects: Manifest[], kind: string) => objects.filter((o) => o.kind === kind);

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** a rule list as single `group/resource[:name] verb` grants, sorted, so two lists compare by what they allow */
export function grants(rules: readonly Rule[]): string[] {
  const out = new Set<string>();
  for (const r of rules) {
    for (const group of r.apiGroups ?? []) {
      for (const resource of r.resources ?? []) {
        for (const name of r.resourceNames?.length ? r.resourceNames : ['']) {
          for (const verb of r.verbs) out.add(`${group}/${resource}${name ? `:${name}` : ''} ${verb}`);
        }
      }
    }
  }
  return [...out].sort();
}

export interface EffectiveGrants {
  /** through ClusterRoleBindings */
  cluster: string[];
  /** through RoleBindings in the ServiceAccount's namespace */
  namespace: string[];
}

/** what the bindings among `objects` grant the ServiceAccount namespace/name */
export function effectiveGrants(objects: Manifest[], namespace: string, serviceAccount: string): EffectiveGrants {
  const boundTo = (b: Manifest) =>
    (b.subjects ?? []).some(
      (s: { kind: string; name: string; namespace?: string }) =>
        s.kind === 'ServiceAccount' && s.name === serviceAccount && s.namespace === namespace,
    );
  const roleRules = (kind: string, name: string, ns?: string) => {
    const role = objects.find(
      (o) => o.kind === kind && o.metadata.name === name && (ns === undefined || o.metadata.namespace === ns),
    );
    if (!role)
      throw new Error(`binding refers to ${kind} ${name}${ns ? ` in ${ns}` : ''}, which is not in the manifests`);
    return role.rules as Rule[];
  };
  const cluster = ofKind(objects, 'ClusterRoleBinding')
    .filter(boundTo)
    .flatMap((b) => roleRules('ClusterRole', b.roleRef.name));
  const local = ofKind(objects, 'RoleBinding')
    .filter((b) => b.metadata.namespace === namespace && boundTo(b))
    .flatMap((b) => roleRules(b.roleRef.kind, b.roleRef.name, b.roleRef.kind === 'Role' ? namespace : undefined));
  return { cluster: grants(cluster), namespace: grants(local) };
}

export function unionGrants(all: EffectiveGrants[]): EffectiveGrants {
  const merge = (lists: string[][]) => [...new Set(lists.flat())].sort();
  return { cluster: merge(all.map((g) => g.cluster)), namespace: merge(all.map((g) => g.namespace)) };
}

export interface ParsedArgs {
  command: 'run' | 'provider';
  /** the controller sets the process runs, as `modelplane rbac` names them */
  sets: string[];
  opts: Record<string, unknown>;
}

/** parses a container's args with modelplane's own command definitions; throws on anything they reject */
export function parseModelplaneArgs(args: string[]): ParsedArgs {
  const program = new Command().exitOverride();
  registerRun(program);
  registerProvider(program, Object.values(BUILTIN_PROVIDER_DEFINITIONS));
  const [name, ...rest] = args;
  const cmd = program.commands.find((c) => c.name() === name);
  if (!cmd || (name !== 'run' && name !== 'provider'))
    throw new Error(`args[0] "${name}": expected the command run or provider`);
  const { operands, unknown } = cmd.parseOptions(rest);
  if (unknown.length > 0) throw new Error(`modelplane ${name}: unknown option(s) ${unknown.join(' ')}`);
  const opts = cmd.opts();
  if (name === 'run') {
    if (operands.length > 0) throw new Error(`modelplane run takes no arguments, got ${operands.join(' ')}`);
    return {
      command: 'run',
      sets: selectControllerSets(CONTROLLER_SETS, opts.controllers as string).map((s) => s.name),
      opts,
    };
  }
  const providers = Object.values(BUILTIN_PROVIDER_DEFINITIONS).map((d) => d.name);
  if (operands.length !== 1 || !providers.includes(operands[0]!))
    throw new Error(`modelplane provider takes one of ${providers.join(', ')}, got "${operands.join(' ')}"`);
  return { command: 'provider', sets: [providerControllerName(operands[0]!)], opts };
}
