// The OCI registry as the AIM controllers see it: an image's labels (for model metadata) and, for model
// sources, a registry's repositories and tags. An interface, so `modelplane dev` plugs in its simulated
// registry (packages/sim/src/registry) and a deployment plugs in a real client; failures are typed so a model can
// tell "retry later" from "fix the spec".

/** NotFound: fix the name; Auth: fix the credentials; Unavailable: retried; Invalid: a request or answer that cannot work */
export type RegistryErrorKind = 'NotFound' | 'Auth' | 'Unavailable' | 'Invalid';

export class RegistryError extends Error {
  constructor(
    readonly kind: RegistryErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

export interface RegistryAuth {
  /** the pull secrets' names and the namespace they live in */
  pullSecrets?: readonly string[];
  namespace?: string;
}

export interface ImageRegistry {
  /** the labels of the image's config; throws RegistryError */
  imageLabels(image: string, auth?: RegistryAuth): Promise<Record<string, string>>;
  /**
   * the digest (`sha256:…`) the image's tag names now (its manifest or index), without reading the image;
   * a client that cannot tell leaves it out; throws RegistryError
   */
  imageDigest?(image: string, auth?: RegistryAuth): Promise<string>;
  /**
   * the repositories of `registry` (the catalog) that start with `prefix` (a client may use it to list less,
   * e.g. one Docker Hub namespace, or ignore it); throws RegistryError
   */
  listRepositories(registry: string, auth?: RegistryAuth, prefix?: string): Promise<string[]>;
  /** the tags of `registry/repository`; throws RegistryError */
  listTags(registry: string, repository: string, auth?: RegistryAuth): Promise<string[]>;
}
