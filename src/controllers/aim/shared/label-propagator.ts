// docs/aim.md's label propagation as the engine's labelPropagators hook: parent labels whose keys match the
// resolved runtime config's `labelPropagation.match` go on every child the parent's controller applies
// (owned or not). The engine merges them under the child's own labels, so a child's own value always wins,
// and copies them onto a Job's pod template too. Generic: any AIM parent, any child kind.
import { propagatedLabels } from '../../../common/label-propagation/index.ts';
import type { LabelPropagator } from '../../../engine/index.ts';
import type { AimRuntimeConfig } from './runtime-config-source.ts';

export const runtimeConfigLabelPropagator: LabelPropagator<AimRuntimeConfig> = (_child, { parent, runtimeConfig }) =>
  // no runtime config (a missing explicit config blocks applies anyway) or propagation off: nothing to add
  propagatedLabels(parent.metadata.labels, runtimeConfig?.spec.labelPropagation, undefined);
