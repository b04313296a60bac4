// Template discovery (docs/aim.md, "Templates"): a Job runs the model image's `dry-run --format=json` with
// the template's parameters in its env; the image prints a JSON array of profiles, and the last valid one
// in the logs becomes status.profile and status.modelSources. Backoff after a failure doubles from 60 s to
// an hour and starts over when the spec changes. Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMModelSourceSpec, AIMProfile } from '../../../apis/aim/index.ts';
import type { EnvVar } from '../../../common/env-merge/index.ts';
import { mergeEnvByName } from '../../../common/env-merge/index.ts';
import { derivedName, hashOf } from '../../../common/model-storage/index.ts';

export const DISCOVERY_APP_LABEL = 'app.kubernetes.io/name';
export const DISCOVERY_APP = 'aim-discovery';
export const TEMPLATE_LABEL = 'aim.eai.amd.com/template';
export const MAX_CONCURRENT_DISCOVERY_JOBS = 10;
export const DISCOVERY_BACKOFF_BASE_MS = 60_000;
export const DISCOVERY_BACKOFF_MAX_MS = 3_600_000;
export const DISCOVERY_TTL_SECONDS = 60;

/** 60 s × 2^(attempts−1), at most an hour; no failure yet: no wait */
export function discoveryBackoffMs(failedAttempts: number, base = DISCOVERY_BACKOFF_BASE_MS): number {
  if (failedAttempts <= 0) return 0;
  return Math.min(base * 2 ** (failedAttempts - 1), DISCOVERY_BACKOFF_MAX_MS);
}

/** the spec fields discovery depends on: a change of any starts discovery (and its backoff) over */
export function discoverySpecHash(
  image: string,
  spec: {
    metric?: string | undefined;
    precision?: string | undefined;
    hardware?: unknown;
    profileId?: string | undefined;
    env?: readonly EnvVar[] | undefined;
  },
): string {
  return hashOf(
    [image, spec.metric ?? '', spec.precision ?? '', spec.hardware ?? null, spec.profileId ?? '', spec.env ?? []],
    16,
  );
}

export function discoveryJobName(templateName: string, specHash: string, attempt: number): string {
  return derivedName(['discover', templateName], [specHash, attempt]);
}

export interface DiscoveryJobInput {
  name: string;
  namespace: string;
  templateName: string;
  image: string;
  template: {
    metric?: string | undefined;
    precision?: string | undefined;
    profileId?: string | undefined;
    env?: readonly EnvVar[] | undefined;
    gpuModel?: string | undefined;
    gpuCount?: number | undefined;
  };
  imagePullSecrets?: ReadonlyArray<{ name: string }> | undefined;
  serviceAccountName?: string | undefined;
}

export function buildDiscoveryJob(input: DiscoveryJobInput): KubeObject {
  const t = input.template;
  const params: EnvVar[] = [
    { name: 'AIM_LOG_LEVEL_ROOT', value: 'CRITICAL' },
    { name: 'AIM_LOG_LEVEL', value: 'CRITICAL' },
    ...(t.metric ? [{ name: 'AIM_METRIC', value: t.metric }] : []),
    ...(t.precision ? [{ name: 'AIM_PRECISION', value: t.precision }] : []),
    ...(t.gpuModel ? [{ name: 'AIM_GPU_MODEL', value: t.gpuModel }] : []),
    ...(t.gpuCount !== undefined ? [{ name: 'AIM_GPU_COUNT', value: String(t.gpuCount) }] : []),
    ...(t.profileId ? [{ name: 'AIM_PROFILE_ID', value: t.profileId }] : []),
  ];
  const labels = {
    [DISCOVERY_APP_LABEL]: DISCOVERY_APP,
    'app.kubernetes.io/component': 'discovery',
    'app.kubernetes.io/managed-by': 'modelplane',
    [TEMPLATE_LABEL]: input.templateName.slice(0, 63).replace(/[^a-z0-9A-Z]+$/, ''),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: input.name, namespace: input.namespace, labels },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: DISCOVERY_TTL_SECONDS,
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          restartPolicy: 'Never',
          ...(input.serviceAccountName ? { serviceAccountName: input.serviceAccountName } : {}),
          ...(input.imagePullSecrets?.length
            ? { imagePullSecrets: input.imagePullSecrets.map((s) => ({ name: s.name })) }
            : {}),
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'discovery',
              image: input.image,
              args: ['dry-run', '--format=json'],
              // the template's env may not override the parameters discovery runs with
              env: mergeEnvByName(t.env, params),
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

export interface DiscoveryResult {
  profile: AIMProfile;
  modelSources: AIMModelSourceSpec[];
}

interface RawProfile {
  profile?: {
    engine_args?: Record<string, unknown>;
    env_vars?: Record<string, string>;
    metadata?: Record<string, unknown>;
  };
  models?: Array<{ name?: string; source?: string; size_gb?: number }>;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** the last line of the logs that is a JSON array of profiles, parsed; undefined when there is none */
export function parseDiscoveryOutput(log: string): DiscoveryResult | undefined {
  const lines = log.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('[')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || typeof parsed[0] !== 'object') continue;
    return toResult(parsed[0] as RawProfile, line);
  }
  return undefined;
}

function toResult(raw: RawProfile, line: string): DiscoveryResult {
  const m = raw.profile?.metadata ?? {};
  const metadata: NonNullable<AIMProfile['metadata']> = {};
  for (const k of ['engine', 'gpu', 'metric', 'precision', 'type'] as const) if (str(m[k])) metadata[k] = str(m[k])!;
  const count = Number(m.gpu_count ?? m.gpuCount);
  if (Number.isInteger(count)) metadata.gpuCount = count;
  const modelSources = (raw.models ?? [])
    .filter((x) => str(x.source) && /^(hf|s3):\/\//.test(x.source!))
    .map((x) => ({
      ...(x.name && /^[a-zA-Z0-9_-]+\/[a-zA-Z0-9._-]+$/.test(x.name) ? { modelId: x.name } : {}),
      sourceUri: x.source!,
      ...(typeof x.size_gb === 'number' && x.size_gb > 0 ? { size: String(Math.ceil(x.size_gb * 1e9)) } : {}),
    }));
  return {
    profile: {
      ...(raw.profile?.engine_args ? { engine_args: raw.profile.engine_args } : {}),
      ...(raw.profile?.env_vars ? { env_vars: raw.profile.env_vars } : {}),
      metadata,
      originalDiscoveryOutput: line.slice(0, 8192),
    },
    modelSources,
  };
}
