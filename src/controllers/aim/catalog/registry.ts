// The OCI registry as the AIM controllers see it: an image's labels (for model metadata) and, for model
// sources, a registry's repositories and tags. An interface, so `modelplane dev` plugs in its simulated
// registry (src/sim/registry) and a deployment plugs in a real client; failures are typed so a model can
// tell "retry later" from "fix the spec".

export type RegistryErrorKind = 'NotFound' | 'Auth' | 'Unavailable';

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
  /** every repository of `registry` (the catalog); throws RegistryError */
  listRepositories(registry: string, auth?: RegistryAuth): Promise<string[]>;
  /** the tags of `registry/repository`; throws RegistryError */
  listTags(registry: string, repository: string, auth?: RegistryAuth): Promise<string[]>;
}
