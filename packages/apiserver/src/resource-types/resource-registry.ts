// All served resource types, built-in and custom. CRD registration replaces a group/resource's entry;
// the generation counter lets discovery and OpenAPI caches know when to rebuild.
import { builtinResourceTypes } from './builtin-types.ts';
import { type ResourceType, servedVersion } from './resource-type.ts';

export class Registry {
  private readonly byGroupResource = new Map<string, ResourceType>();
  /** bumped on every change, so derived documents (discovery, OpenAPI) can be cached */
  generation = 0;
  private readonly changeListeners = new Set<() => void>();

  constructor() {
    for (const rt of builtinResourceTypes()) this.byGroupResource.set(`${rt.group}/${rt.plural}`, rt);
  }

  /** The type served at group/version/plural, or undefined when not served in that version. */
  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    const rt = this.byGroupResource.get(`${group}/${plural}`);
    if (!rt || !servedVersion(rt, version)) return undefined;
    return rt;
  }

  byResource(group: string, plural: string): ResourceType | undefined {
    return this.byGroupResource.get(`${group}/${plural}`);
  }

  byKind(group: string, kind: string): ResourceType | undefined {
    for (const rt of this.byGroupResource.values()) if (rt.group === group && rt.kind === kind) return rt;
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byGroupResource.values()];
  }

  /** group → served versions (ordered as kube orders them: by version priority) */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const rt of this.byGroupResource.values()) {
      const vs = out.get(rt.group) ?? [];
      for (const v of rt.versions) if (v.served && !vs.includes(v.name)) vs.push(v.name);
      out.set(rt.group, vs);
    }
    for (const [g, vs] of out) out.set(g, vs.sort(compareKubeVersions));
    return out;
  }

  put(rt: ResourceType): void {
    this.byGroupResource.set(`${rt.group}/${rt.plural}`, rt);
    this.changed();
  }

  remove(group: string, plural: string): void {
    if (this.byGroupResource.delete(`${group}/${plural}`)) this.changed();
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    this.generation++;
    for (const l of this.changeListeners) l();
  }
}

/**
 * Kubernetes version priority: GA > beta > alpha, higher numbers first, then non-matching names
 * alphabetically (k8s.io/apimachinery/pkg/version.CompareKubeAwareVersionStrings).
 */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return {
      major: Number(m[1]),
      stage: m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1,
      minor: m[3] ? Number(m[3]) : 0,
    };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
