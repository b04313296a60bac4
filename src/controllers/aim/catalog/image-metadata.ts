// Image labels → status.imageMetadata (docs/aim.md, "Models"): the OCI `org.opencontainers.image.*`
// labels and the AIM labels under `com.amd.aim.` (older images: `org.amd.silogen.`). A malformed label
// is an error naming the label, never a crash. Pure.
import type { AIMImageMetadata, AIMRecommendedDeployment } from '../../../apis/aim/index.ts';

const AIM_PREFIXES = ['com.amd.aim.', 'org.amd.silogen.'];
const OCI_PREFIX = 'org.opencontainers.image.';

export type MetadataResult = { ok: true; metadata: AIMImageMetadata } | { ok: false; message: string };

function aimLabel(labels: Record<string, string>, key: string): string | undefined {
  for (const p of AIM_PREFIXES) if (labels[p + key] !== undefined) return labels[p + key];
  return undefined;
}

const list = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function recommended(
  raw: string | undefined,
): { ok: true; value?: AIMRecommendedDeployment[] } | { ok: false; message: string } {
  if (raw === undefined || raw.trim() === '') return { ok: true };
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!Array.isArray(parsed)) return { ok: false, message: 'is not a JSON array' };
    const value = parsed.map((d: Record<string, unknown>) => {
      const out: AIMRecommendedDeployment = {};
      if (typeof d.gpuModel === 'string') out.gpuModel = d.gpuModel;
      if (d.gpuCount !== undefined && Number.isInteger(Number(d.gpuCount))) out.gpuCount = Number(d.gpuCount);
      for (const k of ['precision', 'metric', 'profileId', 'description'] as const)
        if (typeof d[k] === 'string') out[k] = d[k] as string;
      return out;
    });
    return { ok: true, value };
  } catch (err) {
    return { ok: false, message: `is not valid JSON (${(err as Error).message})` };
  }
}

export function metadataFromLabels(labels: Record<string, string>): MetadataResult {
  const rec = recommended(aimLabel(labels, 'model.recommendedDeployments'));
  if (!rec.ok) return { ok: false, message: `image label com.amd.aim.model.recommendedDeployments ${rec.message}` };
  const model: NonNullable<AIMImageMetadata['model']> = {};
  const set = <K extends keyof typeof model>(k: K, v: (typeof model)[K] | undefined) => {
    if (v !== undefined) model[k] = v;
  };
  set('canonicalName', aimLabel(labels, 'model.canonicalName'));
  set('source', aimLabel(labels, 'model.source'));
  set('title', aimLabel(labels, 'title'));
  set('descriptionFull', aimLabel(labels, 'description.full'));
  set('releaseNotes', aimLabel(labels, 'release.notes'));
  set('tags', list(aimLabel(labels, 'model.tags')));
  set('versions', list(aimLabel(labels, 'model.versions')));
  set('variants', list(aimLabel(labels, 'model.variants')));
  const token = aimLabel(labels, 'hfToken.required');
  if (token !== undefined) model.hfTokenRequired = token.toLowerCase() === 'true';
  set('recommendedDeployments', rec.value);
  const oci: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (k.startsWith(OCI_PREFIX)) oci[k.slice(OCI_PREFIX.length)] = v;
  return { ok: true, metadata: { model, ...(Object.keys(oci).length ? { oci } : {}), originalLabels: { ...labels } } };
}
