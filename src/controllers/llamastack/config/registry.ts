// The distributions the operator knows (distributions.json) and their embedded base configs, the image a
// distribution resolves to (the operator ConfigMap's `image-overrides` beat distributions.json), and the
// ConfigResolver that finds a base config for an image. Every name in distributions.json must have
// distributions/<name>.yaml: checked when this module loads and by the tests (docs/llamastack.md,
// "Distributions").
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

const DIR = new URL('./distributions/', import.meta.url);

function loadDistributions(): Readonly<Record<string, string>> {
  const raw = JSON.parse(readFileSync(new URL('distributions.json', DIR), 'utf8')) as Record<string, string>;
  const missing = Object.keys(raw).filter((name) => !existsSync(new URL(`${name}.yaml`, DIR)));
  if (missing.length > 0) {
    throw new Error(
      `distributions.json lists ${missing.map((m) => `"${m}"`).join(', ')} without an embedded base config: add src/controllers/llamastack/config/distributions/<name>.yaml`,
    );
  }
  return Object.freeze({ ...raw });
}

/** distribution name → image, as shipped */
export const DISTRIBUTIONS: Readonly<Record<string, string>> = loadDistributions();
export const DISTRIBUTION_NAMES: readonly string[] = Object.keys(DISTRIBUTIONS).sort();

const baseCache = new Map<string, Readonly<Record<string, unknown>>>();

/** the parsed embedded base config of a distribution (shared: never mutate it) */
export function embeddedBaseConfig(name: string): Readonly<Record<string, unknown>> | undefined {
  if (!Object.hasOwn(DISTRIBUTIONS, name)) return undefined;
  let cfg = baseCache.get(name);
  if (!cfg) {
    cfg = parseYaml(readFileSync(new URL(`${name}.yaml`, DIR), 'utf8')) as Record<string, unknown>;
    baseCache.set(name, cfg);
  }
  return cfg;
}

export interface ResolvedBase {
  config: Readonly<Record<string, unknown>>;
  source: 'embedded' | 'oci-label';
  /** the distribution the config belongs to */
  distribution: string;
}

/** finds the base config for a resolved image (embedded now; OCI image labels can answer behind the same interface) */
export interface ConfigResolver {
  resolve(image: string, distributionName?: string): ResolvedBase | undefined;
}

/** by distribution name, or by an image that is some distribution's image (shipped or overridden) */
export class EmbeddedConfigResolver implements ConfigResolver {
  constructor(private readonly images: Readonly<Record<string, string>> = DISTRIBUTIONS) {}
  resolve(image: string, distributionName?: string): ResolvedBase | undefined {
    const name =
      distributionName ?? DISTRIBUTION_NAMES.find((n) => this.images[n] === image || DISTRIBUTIONS[n] === image);
    const config = name ? embeddedBaseConfig(name) : undefined;
    return config && name ? { config, source: 'embedded', distribution: name } : undefined;
  }
}

// registry/repository[:tag][@digest], lower-case repository path (the reference grammar, simplified)
const IMAGE_REF =
  /^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?\/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

export function isImageReference(s: string): boolean {
  return s.length <= 512 && IMAGE_REF.test(s);
}

export interface ImageOverrides {
  images: Record<string, string>;
  /** entries that were skipped, with why */
  skipped: string[];
}

/** the operator ConfigMap's `image-overrides` (a YAML map name → image); bad entries are skipped, never fatal */
export function parseImageOverrides(raw: string | undefined): ImageOverrides {
  const out: ImageOverrides = { images: {}, skipped: [] };
  if (!raw?.trim()) return out;
  let parsed: unknown;
  try {
    parsed = parseYaml(raw);
  } catch (err) {
    out.skipped.push(`image-overrides is not YAML (${(err as Error).message.split('\n')[0]}): all overrides ignored`);
    return out;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    out.skipped.push('image-overrides must be a map of distribution name to image: all overrides ignored');
    return out;
  }
  for (const [name, image] of Object.entries(parsed)) {
    if (typeof image === 'string' && isImageReference(image)) out.images[name] = image;
    else out.skipped.push(`image-overrides.${name}: ${JSON.stringify(image)} is not an image reference; skipped`);
  }
  return out;
}

export type ImageResolution = { ok: true; image: string; distribution?: string } | { ok: false; message: string };

/** spec.distribution → the image to run: an explicit image verbatim, a name through overrides then distributions.json */
export function resolveImage(
  distribution: { name?: string; image?: string },
  overrides: Readonly<Record<string, string>>,
): ImageResolution {
  if (distribution.image) return { ok: true, image: distribution.image };
  const name = distribution.name;
  if (!name) return { ok: false, message: 'spec.distribution: set name or image' };
  const image = overrides[name] ?? DISTRIBUTIONS[name];
  if (!image) return { ok: false, message: unknownDistributionMessage(name) };
  return { ok: true, image, distribution: name };
}

export function unknownDistributionMessage(name: string): string {
  return `Unknown distribution "${name}". Available distributions: ${DISTRIBUTION_NAMES.join(', ')}`;
}
