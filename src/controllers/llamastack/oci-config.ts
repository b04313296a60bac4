// The base config an image carries in its OCI labels (docs/llamastack.md, "Base config from the image"):
// `io.llamastack.config.base64` holds config.yaml. The pure half: what the labels say, which base config a
// resolution gives, and the BaseConfigResolved condition (the registry reads are in oci-resolver.ts).
import { parseDocument } from 'yaml';
import { asError, asInfo, type ConditionManager } from '../../engine/index.ts';

export const OCI_CONFIG_LABEL = 'io.llamastack.config.base64';
/** a config in a layer (`.layer` + `.path`): named by the design, not read here (refused with the reason) */
export const OCI_CONFIG_LAYER_LABEL = 'io.llamastack.config.layer';
/** the design's limit for an inline config */
export const MAX_LABEL_CONFIG_BYTES = 50 * 1024;

/** what an image's labels say about its base config */
export type LabelConfig =
  | { kind: 'label'; config: Readonly<Record<string, unknown>> }
  | { kind: 'no-label' }
  | { kind: 'invalid'; message: string };

/** the base config in `labels` of `image`; an unusable label is `invalid`, naming the image and the label */
export function configFromLabels(labels: Readonly<Record<string, string>>, image: string): LabelConfig {
  const inline = labels[OCI_CONFIG_LABEL];
  const bad = (why: string): LabelConfig => ({ kind: 'invalid', message: `image ${image}: label ${why}` });
  if (inline === undefined) {
    if (labels[OCI_CONFIG_LAYER_LABEL] !== undefined)
      return bad(
        `${OCI_CONFIG_LAYER_LABEL} names a config inside a layer, which this operator does not read: put the config in ${OCI_CONFIG_LABEL}, or set spec.overrideConfig`,
      );
    return { kind: 'no-label' };
  }
  const compact = inline.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0)
    return bad(`${OCI_CONFIG_LABEL} is not base64`);
  const text = Buffer.from(compact, 'base64').toString('utf8');
  if (Buffer.byteLength(text) > MAX_LABEL_CONFIG_BYTES)
    return bad(
      `${OCI_CONFIG_LABEL} holds ${Buffer.byteLength(text)} bytes, over the ${MAX_LABEL_CONFIG_BYTES} a label config may have`,
    );
  const doc = parseDocument(text, { version: '1.1', prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0)
    return bad(`${OCI_CONFIG_LABEL} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]})`);
  const config = doc.toJS() as unknown;
  if (!config || typeof config !== 'object' || Array.isArray(config))
    return bad(`${OCI_CONFIG_LABEL} is not a YAML mapping (a Llama Stack config.yaml is one)`);
  if ((config as Record<string, unknown>).version === undefined)
    return bad(`${OCI_CONFIG_LABEL} has no "version" field: it is not a Llama Stack config.yaml`);
  return { kind: 'label', config: config as Record<string, unknown> };
}

export type OciResolution =
  | { kind: 'resolved'; image: string; digest: string; result: LabelConfig }
  | {
      kind: 'unavailable';
      image: string;
      message: string;
      /** what failed: the image is unknown to its registry, the registry refused us, or it did not answer */
      cause?: 'NotFound' | 'Auth' | 'Unavailable';
      /** when the registry is asked again */
      retryInMs: number;
      /** the current backoff (stable between retries, unlike retryInMs: it is what status says) */
      backoffMs: number;
      /** the image's last good answer, used meanwhile */
      lastGood?: { digest: string; result: LabelConfig };
    };

/** the answer that counts now: the fresh one, or while the registry fails, the image's last good one */
function currentAnswer(oci: OciResolution | undefined): { digest: string; result: LabelConfig } | undefined {
  if (!oci) return undefined;
  return oci.kind === 'resolved' ? oci : oci.lastGood;
}

/** the base config from the image's label, when the answer that counts has one */
export function labelBase(
  oci: OciResolution | undefined,
): { config: Readonly<Record<string, unknown>>; digest: string } | undefined {
  const a = currentAnswer(oci);
  return a?.result.kind === 'label' ? { config: a.result.config, digest: a.digest } : undefined;
}

/** what is wrong with the image's label, when it has one that cannot be used */
export function labelProblem(oci: OciResolution | undefined): string | undefined {
  const a = currentAnswer(oci);
  return a?.result.kind === 'invalid' ? a.result.message : undefined;
}

const short = (digest: string) => digest.slice(0, 19);

/**
 * BaseConfigResolved, set when the image's registry was asked (absent otherwise): where the base config
 * came from — the label, or the built-in config of `fallback` (the distribution whose embedded config was
 * used) — and, False, a label that cannot be used or a registry that could not be read.
 */
export function setBaseConfigResolved(
  cm: ConditionManager,
  oci: OciResolution | undefined,
  fallback: string | undefined,
): void {
  if (!oci) {
    cm.delete('BaseConfigResolved');
    return;
  }
  const builtIn = fallback ? `the built-in base config of distribution ${fallback} is used` : undefined;
  if (oci.kind === 'unavailable') {
    const label = labelBase(oci);
    const meanwhile = label
      ? `using the last good base config, from label ${OCI_CONFIG_LABEL} of ${short(label.digest)}`
      : (builtIn ?? 'no base config until it can be read');
    const retry = `asked again every ${Math.ceil(oci.backoffMs / 1000)} s, doubling`;
    const reason =
      oci.cause === 'NotFound' ? 'ImageNotFound' : oci.cause === 'Auth' ? 'RegistryAuthFailed' : 'RegistryUnavailable';
    cm.markFalse(
      'BaseConfigResolved',
      reason,
      `image ${oci.image}: its registry could not be read (${oci.message}); ${meanwhile}; ${retry}`,
      asError(),
    );
    return;
  }
  const at = `image ${oci.image} (${short(oci.digest)})`;
  const r = oci.result;
  if (r.kind === 'label')
    cm.markTrue('BaseConfigResolved', 'OCILabel', `base config from label ${OCI_CONFIG_LABEL} of ${at}`, asInfo());
  else if (r.kind === 'invalid') cm.markFalse('BaseConfigResolved', 'InvalidBaseConfigLabel', r.message, asError());
  else if (builtIn)
    cm.markTrue(
      'BaseConfigResolved',
      'EmbeddedFallback',
      `${at} carries no ${OCI_CONFIG_LABEL} label: ${builtIn}`,
      asInfo(),
    );
  else
    cm.markFalse(
      'BaseConfigResolved',
      'NoConfigLabel',
      `${at} carries no ${OCI_CONFIG_LABEL} label and is no known distribution's image: set spec.overrideConfig, or spec.distribution.name`,
      asError(),
    );
}
