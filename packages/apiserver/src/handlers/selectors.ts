// Turns a request's labelSelector/fieldSelector into one predicate, with kube's 400 errors for
// malformed selectors and unsupported field labels.
import { eventsV1ToEvent } from '../builtin/events.ts';
import { errors } from '../errors.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { convertFieldSelector, parseFieldSelector } from '../selectors/fields.ts';
import { formatLabelSelector, type LabelSelectorObject, parseLabelSelector } from '../selectors/labels.ts';
import type { KubeObject } from '../types.ts';

export function compileSelectors(
  rt: ResourceType,
  version: string,
  query: URLSearchParams,
): (obj: KubeObject) => boolean {
  const ls = query.get('labelSelector');
  const fs = query.get('fieldSelector');
  let labelMatch: ((o: KubeObject) => boolean) | undefined;
  let fieldMatch: ((o: KubeObject) => boolean) | undefined;
  if (ls) {
    try {
      const sel = parseLabelSelector(ls);
      labelMatch = (o) => sel.matches(o.metadata.labels);
    } catch (e) {
      throw errors.badRequest((e as Error).message);
    }
  }
  if (fs) {
    try {
      const selectable = rt.versions.find((v) => v.name === version)?.selectableFields;
      const target = rt.builtin
        ? { group: rt.group, kind: rt.kind }
        : {
            group: rt.group,
            kind: rt.kind,
            customResource: { namespaced: rt.namespaced, ...(selectable ? { selectableFields: selectable } : {}) },
          };
      const sel = convertFieldSelector(parseFieldSelector(fs), target);
      // events.k8s.io field labels are converted to the stored core/v1 names, so match the stored shape
      const view = rt.group === 'events.k8s.io' ? eventsV1ToEvent : (o: KubeObject) => o;
      fieldMatch = (o) => sel.matchesObject(view(o));
    } catch (e) {
      throw errors.badRequest((e as Error).message);
    }
  }
  if (labelMatch && fieldMatch) return (o) => labelMatch(o) && fieldMatch(o);
  return labelMatch ?? fieldMatch ?? (() => true);
}

export function labelSelectorToString(sel: Record<string, unknown>): string {
  return formatLabelSelector(sel as LabelSelectorObject);
}
