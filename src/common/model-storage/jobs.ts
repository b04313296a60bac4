// The Jobs that fill a model PVC (docs/aim.md, "Caches and artifacts"): a check-size Job that prints the
// source's size in bytes as its last log line (run when the size is not known up front), and a download
// Job that copies the weights onto the PVC. Pure; the download env follows docs/aim.md's precedence:
// operator defaults < cluster runtime config < namespace runtime config < the object's own env.
import { type EnvVar, mergeEnvByPrecedence, OPERATOR_DEFAULT_DOWNLOAD_ENV } from '../env-merge/index.ts';

/** the downloader every model download runs (its `download <uri>` program fills /cache) */
export const DEFAULT_DOWNLOAD_IMAGE = 'ghcr.io/silogen/aim-artifact-downloader:0.2.0';
export const DOWNLOAD_MOUNT_PATH = '/cache';
export const DOWNLOAD_CONTAINER = 'model-download';
export const CHECK_SIZE_CONTAINER = 'check-size';
export const DOWNLOAD_STALL_TIMEOUT_SECONDS = 120;

/** what the downloader reads besides the protocol list (fixed per artifact) */
export function downloadBaseEnv(input: {
  artifactName: string;
  namespace: string;
  expectedSizeBytes?: number | undefined;
}): EnvVar[] {
  return [
    ...OPERATOR_DEFAULT_DOWNLOAD_ENV,
    { name: 'TMPDIR', value: '/tmp/' },
    { name: 'HF_HOME', value: '/tmp/.hf' },
    ...(input.expectedSizeBytes !== undefined
      ? [{ name: 'EXPECTED_SIZE_BYTES', value: String(input.expectedSizeBytes) }]
      : []),
    { name: 'MOUNT_PATH', value: DOWNLOAD_MOUNT_PATH },
    { name: 'TARGET_DIR', value: DOWNLOAD_MOUNT_PATH },
    { name: 'ARTIFACT_NAME', value: input.artifactName },
    { name: 'ARTIFACT_NAMESPACE', value: input.namespace },
    { name: 'STALL_TIMEOUT', value: String(DOWNLOAD_STALL_TIMEOUT_SECONDS) },
  ];
}

/**
 * The download env, lowest precedence first: the operator's defaults (AIM_DOWNLOADER_PROTOCOL=XET,HF_TRANSFER
 * and the fixed variables), the merged runtime config's env (cluster < namespace, already merged by name),
 * then the object's own env. Same-named variables replace earlier ones.
 */
export function downloadEnv(
  base: readonly EnvVar[],
  runtimeConfigEnv: readonly EnvVar[] | undefined,
  objectEnv: readonly EnvVar[] | undefined,
): EnvVar[] {
  // the resolved runtime config's env is cluster < namespace already (merged by name at resolution)
  return mergeEnvByPrecedence({ operatorDefaults: base, namespaceRuntimeConfig: runtimeConfigEnv, object: objectEnv });
}

/** the protocols the downloader tries, in order, from its env */
export function protocolSequence(env: readonly EnvVar[]): string[] {
  const v = env.find((e) => e.name === 'AIM_DOWNLOADER_PROTOCOL')?.value ?? '';
  return v
    .split(',')
    .map((p) => p.trim().toUpperCase())
    .filter(Boolean);
}

const RESTRICTED_CONTAINER = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
  runAsUser: 65532,
  seccompProfile: { type: 'RuntimeDefault' },
};

export interface StorageJobInput {
  name: string;
  namespace: string;
  image: string;
  sourceUri: string;
  env: readonly EnvVar[];
  labels?: Record<string, string>;
  imagePullSecrets?: ReadonlyArray<{ name: string }> | undefined;
}

type JobObject = {
  apiVersion: 'batch/v1';
  kind: 'Job';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
};

function job(
  input: StorageJobInput,
  container: Record<string, unknown>,
  volumes: unknown[],
  backoffLimit: number,
): JobObject {
  const labels = { ...(input.labels ?? {}) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: input.name, namespace: input.namespace, labels },
    spec: {
      backoffLimit,
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          restartPolicy: 'Never',
          ...(input.imagePullSecrets?.length
            ? { imagePullSecrets: input.imagePullSecrets.map((s) => ({ name: s.name })) }
            : {}),
          containers: [
            {
              image: input.image,
              imagePullPolicy: 'IfNotPresent',
              securityContext: RESTRICTED_CONTAINER,
              env: input.env.map((e) => ({ ...e })),
              ...container,
            },
          ],
          ...(volumes.length ? { volumes } : {}),
        },
      },
    },
  };
}

/** prints the source's total size in bytes as its last log line */
export function buildCheckSizeJob(input: StorageJobInput): JobObject {
  return job(input, { name: CHECK_SIZE_CONTAINER, args: ['check-size', input.sourceUri] }, [], 0);
}

/** copies the source onto the PVC `claimName`, mounted at /cache */
export function buildDownloadJob(input: StorageJobInput & { claimName: string }): JobObject {
  return job(
    input,
    {
      name: DOWNLOAD_CONTAINER,
      args: ['download', input.sourceUri],
      volumeMounts: [{ name: 'model-cache', mountPath: DOWNLOAD_MOUNT_PATH }],
    },
    [{ name: 'model-cache', persistentVolumeClaim: { claimName: input.claimName } }],
    0,
  );
}

/** the last line of the check-size output that is a byte count */
export function parseCheckSizeOutput(log: string): number | undefined {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (/^\d+$/.test(lines[i]!)) {
      const n = Number(lines[i]);
      if (n > 0 && Number.isSafeInteger(n)) return n;
    }
  }
  return undefined;
}
