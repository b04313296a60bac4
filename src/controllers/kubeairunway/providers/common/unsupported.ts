// A ModelDeployment field the upstream kind has no place for is refused, naming the field, instead of being
// dropped: silently deploying something other than what was asked for is the worse failure.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';

export type OptionalField =
  | 'spec.env'
  | 'spec.engine.args'
  | 'spec.engine.extraArgs'
  | 'spec.engine.contextLength'
  | 'spec.engine.image'
  | 'spec.image'
  | 'spec.model.servedName'
  | 'spec.nodeSelector'
  | 'spec.tolerations';

/** whether each optional spec field some upstream kinds cannot carry is set */
const FIELDS: Readonly<Record<OptionalField, (md: ModelDeployment) => boolean>> = {
  'spec.env': (md) => (md.spec.env?.length ?? 0) > 0,
  'spec.engine.args': (md) => Object.keys(md.spec.engine?.args ?? {}).length > 0,
  'spec.engine.extraArgs': (md) => (md.spec.engine?.extraArgs?.length ?? 0) > 0,
  'spec.engine.contextLength': (md) => md.spec.engine?.contextLength !== undefined,
  'spec.engine.image': (md) => Boolean(md.spec.engine?.image),
  'spec.image': (md) => Boolean(md.spec.image),
  'spec.model.servedName': (md) => Boolean(md.spec.model?.servedName),
  'spec.nodeSelector': (md) => Object.keys(md.spec.nodeSelector ?? {}).length > 0,
  'spec.tolerations': (md) => (md.spec.tolerations?.length ?? 0) > 0,
};

/** throws one Error listing every field of `fields` that is set, followed by `why` */
export function rejectUnsupportedFields(md: ModelDeployment, fields: readonly OptionalField[], why: string): void {
  const set = fields.filter((f) => FIELDS[f](md));
  if (set.length > 0) throw new Error(`${set.join(', ')}: ${why}`);
}
