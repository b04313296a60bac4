// A model source's filters (docs/aim.md, "Model sources"), pure: which repositories a filter needs from
// the registry, and which of the listed images it selects. A filter's `image` is a repository pattern
// (`*` = any run of characters), `repo:tag`, or either with a registry host in front (that filter then
// lists that registry instead of spec.registry). `exclude` drops repositories by exact name. Version
// constraints (the filter's own, else spec.versions) must all hold; with constraints, tags that are not
// semantic versions are skipped; without any, every tag is taken. An exact `repo:tag` takes that tag only.
import semver from 'semver';
import type { AIMClusterModelSourceFilter } from '../../../apis/aim/index.ts';

export const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** docker.io's other spellings become docker.io, so models and filters compare equal */
export function canonicalRegistry(host: string): string {
  const h = host.trim().toLowerCase();
  return DOCKER_HUB_ALIASES.has(h) ? DOCKER_HUB : h;
}

/** one filter, parsed; `problem` (with the field it names) when it cannot be used */
export interface ParsedFilter {
  index: number;
  /** the field path, e.g. `spec.filters[2]` */
  field: string;
  registry: string;
  /** the filter names its own registry host (otherwise spec.registry applies) */
  explicitRegistry: boolean;
  /** the repository pattern without host or tag */
  repository: string;
  wildcard: boolean;
  tag?: string;
  exclude: readonly string[];
  /** the constraints that apply (the filter's own, else the source's); parsed ranges */
  constraints: readonly { text: string; field: string; range: semver.Range }[];
  problem?: string;
}

export interface ModelImage {
  registry: string;
  repository: string;
  tag: string;
}

export const imageUri = (i: ModelImage) => `${i.registry}/${i.repository}:${i.tag}`;

const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?$/;
const REPOSITORY_PATTERN = /^[a-z0-9*]+(?:(?:[._/]|__|-+)[a-z0-9*]+)*\**$/;
const TAG = /^[\w][\w.-]{0,127}$/;

/** `spec.registry` as a host[:port]; a problem message naming the field when it is not one */
export function registryProblem(registry: string): string | undefined {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(registry))
    return `spec.registry ${JSON.stringify(registry)} must be a host[:port] without a URL scheme (e.g. "ghcr.io" or "registry.example.com:5000")`;
  if (!HOST.test(registry))
    return `spec.registry ${JSON.stringify(registry)} is not a valid host[:port] (e.g. "docker.io" or "registry.example.com:5000")`;
  return undefined;
}

function parseConstraints(
  own: readonly string[] | undefined,
  global: readonly string[] | undefined,
  field: string,
): { constraints: ParsedFilter['constraints']; problem?: string } {
  const [list, listField] = own?.length ? [own, `${field}.versions`] : [global ?? [], 'spec.versions'];
  const constraints: { text: string; field: string; range: semver.Range }[] = [];
  for (const [i, text] of list.entries()) {
    const f = `${listField}[${i}]`;
    let range: semver.Range | undefined;
    try {
      range = new semver.Range(text);
    } catch {
      range = undefined;
    }
    if (!range || text.trim() === '')
      return {
        constraints: [],
        problem: `${f} ${JSON.stringify(text)} is not a valid semver constraint (e.g. ">=0.8.4", "~1.2", ">=1.0.0 <2.0.0")`,
      };
    constraints.push({ text, field: f, range });
  }
  return { constraints };
}

/** parses filter `index` of a source whose registry is `registry` and global constraints `versions` */
export function parseFilter(
  filter: AIMClusterModelSourceFilter,
  index: number,
  registry: string,
  versions: readonly string[] | undefined,
): ParsedFilter {
  const field = `spec.filters[${index}]`;
  let rest = filter.image.trim();
  const parts = rest.split('/');
  let host = registry;
  let explicitRegistry = false;
  // the first part is a host when it has a dot or a port or is localhost (as container runtimes decide)
  if (parts.length > 1 && (/[.:]/.test(parts[0]!) || parts[0] === 'localhost')) {
    host = parts.shift()!;
    rest = parts.join('/');
    explicitRegistry = true;
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const { constraints, problem: constraintProblem } = parseConstraints(filter.versions, versions, field);
  const parsed: ParsedFilter = {
    index,
    field,
    registry: canonicalRegistry(host),
    explicitRegistry,
    repository: rest,
    wildcard: rest.includes('*'),
    ...(tag !== undefined ? { tag } : {}),
    exclude: filter.exclude ?? [],
    constraints,
  };
  const problem =
    (explicitRegistry
      ? !HOST.test(host)
        ? `${field}.image ${JSON.stringify(filter.image)}: ${JSON.stringify(host)} is not a valid registry host`
        : undefined
      : registryProblem(registry)) ??
    (!REPOSITORY_PATTERN.test(rest)
      ? `${field}.image ${JSON.stringify(filter.image)}: ${JSON.stringify(rest)} is not a repository or repository pattern (lowercase path components, '*' for any run of characters)`
      : undefined) ??
    (tag !== undefined && !TAG.test(tag)
      ? `${field}.image ${JSON.stringify(filter.image)}: tag ${JSON.stringify(tag)} is invalid`
      : undefined) ??
    (tag !== undefined && parsed.wildcard
      ? `${field}.image ${JSON.stringify(filter.image)}: a pattern with '*' cannot name a tag; use ${field}.versions to choose tags`
      : undefined) ??
    constraintProblem;
  if (problem) parsed.problem = problem;
  return parsed;
}

/** `*` matches any run of characters (including '/'); everything else literally */
export function matchesPattern(pattern: string, text: string): boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last)) return false;
  let pos = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const at = text.indexOf(piece, pos);
    if (at < 0 || at + piece.length > end) return false;
    pos = at + piece.length;
  }
  return true;
}

/** does the filter take `repository` (pattern or exact name, minus its excludes)? */
export function filterTakesRepository(f: ParsedFilter, repository: string): boolean {
  return matchesPattern(f.repository, repository) && !f.exclude.includes(repository);
}

/** a tag as a semantic version: `v1.2.3` and `1.2.3` both count; anything else is not one */
export function tagVersion(tag: string): semver.SemVer | undefined {
  const v = semver.parse(tag.startsWith('v') ? tag.slice(1) : tag);
  return v ?? undefined;
}

/** does the filter take `tag`? (exact tag; else every constraint holds; no constraints: every tag) */
export function filterTakesTag(f: ParsedFilter, tag: string): boolean {
  if (f.tag !== undefined) return tag === f.tag;
  if (f.constraints.length === 0) return true;
  const v = tagVersion(tag);
  return v !== undefined && f.constraints.every((c) => c.range.test(v));
}

/** newest first by semantic version; other tags after, by name */
export function compareTags(a: string, b: string): number {
  const va = tagVersion(a);
  const vb = tagVersion(b);
  if (va && vb) return semver.rcompare(va, vb) || a.localeCompare(b);
  if (va) return -1;
  if (vb) return 1;
  return a.localeCompare(b);
}
