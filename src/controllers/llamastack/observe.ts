// The pure half of a reconcile's reading: from what was fetched to what the config is, which image runs,
// which secrets and referenced endpoints are missing (docs/llamastack.md, "Conditions").

import type { ConfigMap, Secret } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type LlamaStackDistribution, normalizeV1Alpha2Spec, PROVIDER_SECTIONS } from '../../apis/llamastack/index.ts';
import type { FetchResult } from '../../engine/index.ts';
import { inferenceServiceName, PREDICTOR_SERVICE_PORT, predictorServiceName } from '../aim/service/names.ts';
import { type CaBundleOutcome, mergeCaBundle } from './ca-bundle.ts';
import {
  ConfigGenerationError,
  DEFAULT_PORT,
  EmbeddedConfigResolver,
  type GeneratedConfig,
  generateConfig,
  hasDeclarativeConfig,
  type ImageResolution,
  parseImageOverrides,
  providerId,
  type ResolvedBase,
  refOf,
  resolveImage,
} from './config/index.ts';
import type { ModelCheck } from './model-check.ts';
import { configMapName, type Deployment, IMAGE_OVERRIDES_KEY, type Ingress, type ReplicaSet } from './names.ts';
import { labelBase, labelProblem, type OciResolution } from './oci-config.ts';
import { type SecretProblem, type SecretRef, secretProblems, secretRefsOf, secretValuesHash } from './secret-refs.ts';
import type { ServerReport } from './server-health.ts';

export interface ReferencedEndpoint {
  providerId: string;
  kind: 'ModelDeployment' | 'AIMService';
  name: string;
  field: string;
  object: FetchResult<KubeObject>;
}

export interface LlamaStackFetch {
  operatorConfig: FetchResult<ConfigMap>;
  overrideConfig?: FetchResult<ConfigMap>;
  caBundle?: FetchResult<ConfigMap>;
  /** what the running server said about itself, once its rollout completed (absent before) */
  server?: ServerReport;
  /** the managed `<cr>-ca-bundle` ConfigMap, as it is now */
  caBundleConfigMap: FetchResult<ConfigMap>;
  secrets: ReadonlyMap<string, FetchResult<Secret>>;
  refs: readonly ReferencedEndpoint[];
  /** what the image's registry says about its base config (absent: no registry, or nothing to generate) */
  ociConfig?: OciResolution;
  /** what each referenced endpoint answered to /v1/models (absent: the operator cannot reach Services) */
  models?: readonly ModelCheck[];
  deployment: FetchResult<Deployment>;
  service: FetchResult<KubeObject>;
  serviceAccount: FetchResult<KubeObject>;
  pvc: FetchResult<KubeObject>;
  pdb: FetchResult<KubeObject>;
  hpa: FetchResult<KubeObject>;
  networkPolicy: FetchResult<KubeObject>;
  ingress: FetchResult<Ingress>;
  configMaps: FetchResult<ConfigMap[]>;
  replicaSets: FetchResult<ReplicaSet[]>;
}

export type ConfigOutcome =
  | {
      kind: 'generated';
      generated: GeneratedConfig;
      configMap: string;
      source: 'embedded' | 'oci-label';
      distribution: string;
    }
  | { kind: 'override'; configMap: string; namespace: string }
  | { kind: 'image-default' }
  | { kind: 'waiting'; message: string }
  | { kind: 'failed'; error: ConfigGenerationError };

export interface LlamaStackObservation {
  fetched: LlamaStackFetch;
  spec: LlamaStackDistribution['spec'];
  image: ImageResolution;
  overridesSkipped: string[];
  port: number;
  secretRefs: SecretRef[];
  secretProblems: SecretProblem[];
  secretHash?: string;
  config: ConfigOutcome;
  /** the image changed since the last recorded one (an operator upgrade or a new override) */
  imageChanged: boolean;
  /** the merged CA bundle when the spec names one, or what is wrong with it */
  caBundle?: CaBundleOutcome;
  /** the distribution whose built-in base config the image falls back to (none: the image is no distribution's) */
  builtInBase?: string;
}

const fetchedValue = <T>(r: FetchResult<T> | undefined): T | undefined => (r?.ok() ? r.value : undefined);

/**
 * The Service behind a ModelDeployment's or AIMService's OpenAI-compatible API: a ModelDeployment names it
 * in status.endpoint; an AIMService serves through its InferenceService's predictor Service once Running.
 */
export function endpointServiceOf(ref: ReferencedEndpoint): { service: string; port?: number } | undefined {
  const o = fetchedValue(ref.object) as
    | { status?: { endpoint?: { service?: string; port?: number }; status?: string } }
    | undefined;
  if (ref.kind === 'AIMService' && o?.status?.status === 'Running')
    return { service: predictorServiceName(inferenceServiceName(ref.name)), port: PREDICTOR_SERVICE_PORT };
  const ep = o?.status?.endpoint;
  return ep?.service ? { service: ep.service, ...(ep.port ? { port: ep.port } : {}) } : undefined;
}

/** the cluster URL of the referenced object's OpenAI-compatible API (`…/v1`), as the config names it */
export function endpointOf(ref: ReferencedEndpoint, namespace: string): string | undefined {
  const ep = endpointServiceOf(ref);
  return ep && `http://${ep.service}.${namespace}.svc.cluster.local${ep.port ? `:${ep.port}` : ''}/v1`;
}

export function referencedEndpoints(cr: LlamaStackDistribution): Array<Omit<ReferencedEndpoint, 'object'>> {
  const spec = normalizeV1Alpha2Spec(cr.spec);
  return PROVIDER_SECTIONS.flatMap((section) =>
    (spec.providers?.[section] ?? []).flatMap((p, i) => {
      const ref = refOf(p);
      if (!ref) return [];
      const field = `spec.providers.${section}[${i}].${ref.kind === 'ModelDeployment' ? 'modelDeploymentRef' : 'aimServiceRef'}`;
      return [{ providerId: providerId(p), kind: ref.kind, name: ref.name, field }];
    }),
  );
}

function decideConfig(
  cr: LlamaStackDistribution,
  spec: LlamaStackDistribution['spec'],
  image: ImageResolution,
  overrides: Record<string, string>,
  f: LlamaStackFetch,
): ConfigOutcome {
  if (spec.overrideConfig)
    return {
      kind: 'override',
      configMap: spec.overrideConfig.configMapName,
      namespace: spec.overrideConfig.configMapNamespace ?? cr.metadata.namespace!,
    };
  if (!image.ok)
    return {
      kind: 'failed',
      error: new ConfigGenerationError('ConfigGenerationFailed', image.message, 'spec.distribution.name'),
    };
  // the image's own label beats the built-in config; a label that is there but unusable is an error
  const invalid = labelProblem(f.ociConfig);
  if (invalid)
    return { kind: 'failed', error: new ConfigGenerationError('InvalidBaseConfigLabel', invalid, 'spec.distribution') };
  const fromLabel = labelBase(f.ociConfig);
  const base: ResolvedBase | undefined = fromLabel
    ? { config: fromLabel.config, source: 'oci-label', distribution: spec.distribution.name ?? image.image }
    : new EmbeddedConfigResolver({ ...overrides }).resolve(image.image, image.distribution);
  if (!base) {
    if (!hasDeclarativeConfig(spec)) return { kind: 'image-default' };
    return {
      kind: 'failed',
      error: new ConfigGenerationError(
        'BaseConfigRequired',
        `spec.distribution.image ${image.image} has no known base config to merge providers, resources, storage or disabled into: set spec.overrideConfig to a ConfigMap with a complete config.yaml, or use spec.distribution.name`,
        'spec.distribution.image',
      ),
    };
  }
  const endpoints: Record<string, string> = {};
  const waiting: string[] = [];
  for (const ref of f.refs) {
    const url = endpointOf(ref, cr.metadata.namespace!);
    if (url) endpoints[ref.providerId] = url;
    else
      waiting.push(
        `${ref.field}: ${ref.kind} ${ref.name} ${ref.object.isNotFound() ? 'does not exist' : 'has no endpoint yet'}`,
      );
  }
  if (waiting.length) return { kind: 'waiting', message: `waiting for referenced endpoints: ${waiting.join('; ')}` };
  try {
    const generated = generateConfig({
      spec,
      base: base.config,
      distroName: spec.distribution.name ?? image.image,
      endpoints,
    });
    return {
      kind: 'generated',
      generated,
      configMap: configMapName(cr.metadata.name!, generated.hash),
      source: base.source,
      distribution: base.distribution,
    };
  } catch (err) {
    if (err instanceof ConfigGenerationError) return { kind: 'failed', error: err };
    return {
      kind: 'failed',
      error: new ConfigGenerationError('ConfigGenerationFailed', `generating config.yaml: ${(err as Error).message}`),
    };
  }
}

export function observe(cr: LlamaStackDistribution, f: LlamaStackFetch): LlamaStackObservation {
  const spec = normalizeV1Alpha2Spec(cr.spec);
  const { images: overrides, skipped } = parseImageOverrides(
    fetchedValue(f.operatorConfig)?.data?.[IMAGE_OVERRIDES_KEY],
  );
  const image = resolveImage(spec.distribution, overrides);
  const secretRefs = secretRefsOf(spec);
  const secrets = new Map([...f.secrets].map(([name, r]) => [name, fetchedValue(r)]));
  const problems = secretProblems(secretRefs, secrets, cr.metadata.namespace!);
  const recorded = cr.status?.resolvedDistribution?.image;
  const builtIn = image.ok
    ? new EmbeddedConfigResolver({ ...overrides }).resolve(image.image, image.distribution)
    : undefined;
  return {
    fetched: f,
    spec,
    image,
    overridesSkipped: skipped,
    port: spec.networking?.port ?? DEFAULT_PORT,
    secretRefs,
    secretProblems: problems,
    ...(problems.length === 0 ? { secretHash: secretValuesHash(secretRefs, secrets) } : {}),
    config: decideConfig(cr, spec, image, overrides, f),
    imageChanged: recorded !== undefined && image.ok && recorded !== image.image,
    ...(builtIn ? { builtInBase: builtIn.distribution } : {}),
    ...(spec.networking?.tls?.caBundle
      ? {
          caBundle: mergeCaBundle(spec.networking.tls.caBundle, cr.metadata.namespace!, fetchedValue(f.caBundle)),
        }
      : {}),
  };
}
