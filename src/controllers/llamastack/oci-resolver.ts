// Reading the base config an image carries (docs/llamastack.md, "Base config from the image"): the
// registry is asked which digest the image's tag names (again once that answer is older than the recheck),
// and each digest's labels are read once, the answers kept by digest in a bounded cache. A registry that
// fails is retried with backoff, and meanwhile the image's last good answer is used. All of it happens in
// the fetch phase; what the labels mean is decided in oci-config.ts.
import { type ImageRegistry, RegistryError } from '@modelplane/runtime/registry';
import { parseImageReference } from '../aim/shared/image-reference.ts';
import { configFromLabels, type LabelConfig, type OciResolution } from './oci-config.ts';

export type DigestRegistry = Pick<ImageRegistry, 'imageLabels'> & Required<Pick<ImageRegistry, 'imageDigest'>>;

export interface OciConfigResolverOptions {
  /** how long a tag's digest is trusted before the registry is asked again */
  tagRecheckMs: number;
  /** digests whose answers are kept (default 64) */
  maxDigests?: number;
  /** images whose state is kept (default 1,024) */
  maxImages?: number;
  /** first retry after a failure, doubled per failure up to backoffMaxMs (defaults 5 s, 5 min) */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  now?: () => number;
}

interface ImageState {
  digest?: string;
  digestAt: number;
  result?: LabelConfig;
  failures: number;
  retryAt: number;
  /** the wait before retryAt (the backoff of the last failure) */
  backoffMs?: number;
  error?: string;
  errorKind?: string;
}

/** a Map used as a bounded LRU: a set moves the key to the end, the oldest goes past the bound */
function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

export class OciConfigResolver {
  private readonly byDigest = new Map<string, LabelConfig>();
  private readonly images = new Map<string, ImageState>();
  /** reads under way, by image: objects of one image reconciled at once share one registry request */
  private readonly inflight = new Map<string, Promise<OciResolution>>();
  /** label reads made (one per digest not in the cache): tests and metrics count them */
  labelReads = 0;

  constructor(
    private readonly registry: DigestRegistry,
    private readonly opts: OciConfigResolverOptions,
  ) {}

  /** the base config `image` carries, as its registry says now, or why it cannot say; never throws */
  resolve(image: string): Promise<OciResolution> {
    const pending = this.inflight.get(image);
    if (pending) return pending;
    const read = this.read(image).finally(() => this.inflight.delete(image));
    this.inflight.set(image, read);
    return read;
  }

  private async read(image: string): Promise<OciResolution> {
    const now = (this.opts.now ?? Date.now)();
    const st = this.images.get(image);
    if (st && st.retryAt > now) return this.unavailable(image, st, now);
    try {
      const fresh = !st?.digest || now - st.digestAt >= this.opts.tagRecheckMs;
      const digest = fresh ? await this.registry.imageDigest(image) : st.digest!;
      let result = this.byDigest.get(digest);
      if (!result) {
        this.labelReads++;
        result = configFromLabels(await this.registry.imageLabels(pinned(image, digest)), image);
      }
      setBounded(this.byDigest, digest, result, this.opts.maxDigests ?? 64);
      const next = { digest, digestAt: fresh ? now : st!.digestAt, result, failures: 0, retryAt: 0 };
      setBounded(this.images, image, next, this.opts.maxImages ?? 1_024);
      return { kind: 'resolved', image, digest, result };
    } catch (err) {
      const failures = (st?.failures ?? 0) + 1;
      const delay = Math.min(
        (this.opts.backoffBaseMs ?? 5_000) * 2 ** Math.min(failures - 1, 20),
        this.opts.backoffMaxMs ?? 300_000,
      );
      const next: ImageState = {
        ...(st ?? { digestAt: 0 }),
        failures,
        retryAt: now + delay,
        backoffMs: delay,
        error: (err as Error).message,
        errorKind: err instanceof RegistryError ? err.kind : 'Unavailable',
      };
      setBounded(this.images, image, next, this.opts.maxImages ?? 1_024);
      return this.unavailable(image, next, now);
    }
  }

  private unavailable(image: string, st: ImageState, now: number): OciResolution {
    return {
      kind: 'unavailable',
      image,
      message: st.error ?? 'the registry could not be read',
      cause: st.errorKind === 'NotFound' || st.errorKind === 'Auth' ? st.errorKind : 'Unavailable',
      retryInMs: Math.max(0, st.retryAt - now),
      backoffMs: st.backoffMs ?? 0,
      ...(st.digest && st.result ? { lastGood: { digest: st.digest, result: st.result } } : {}),
    };
  }
}

/** `registry/repo:tag` → `registry/repo@digest`: the labels read are those of the digest resolved */
function pinned(image: string, digest: string): string {
  const parsed = parseImageReference(image);
  if (!parsed.ok) return image;
  const { domain, path } = parsed.reference;
  return `${domain ? `${domain}/` : ''}${path}@${digest}`;
}
