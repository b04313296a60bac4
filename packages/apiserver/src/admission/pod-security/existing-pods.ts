// The warnings PodSecurity returns when a namespace's enforce level is tightened: which existing pods
// the new level would refuse (EvaluatePodsInNamespace). Pods sharing the same violations are folded into
// one line naming the lexically first of them; one pod per controller is checked before the rest of its
// replicas, and at most 3000 pods are checked.
import type { KubeObject } from '../../types.ts';
import { goQuote } from '../../validation/field-errors.ts';
import { evaluatePod, forbiddenReason } from './evaluator.ts';
import { type LevelVersion, levelVersionString } from './levels.ts';
import { podOf } from './pod-templates.ts';

const MAX_PODS_TO_CHECK = 3000;

/** Pods to check, one per controller first, without those whose runtime class is exempt. */
function prioritized(
  pods: readonly KubeObject[],
  exemptRuntimeClass: (name: string | undefined) => boolean,
): KubeObject[] {
  const first: KubeObject[] = [];
  const replicas: KubeObject[] = [];
  const seenControllers = new Set<string>();
  for (const pod of pods) {
    if (exemptRuntimeClass((pod.spec as { runtimeClassName?: string } | undefined)?.runtimeClassName)) continue;
    const controller = pod.metadata.ownerReferences?.find((r) => r.controller === true);
    if (!controller) first.push(pod);
    else if (seenControllers.has(controller.uid)) replicas.push(pod);
    else {
      seenControllers.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...replicas];
}

export function existingPodWarnings(
  namespace: string,
  enforce: LevelVersion,
  pods: readonly KubeObject[],
  exemptRuntimeClass: (name: string | undefined) => boolean,
): string[] {
  const candidates = prioritized(pods, exemptRuntimeClass);
  const checked = candidates.slice(0, MAX_PODS_TO_CHECK);
  const byReason = new Map<string, { firstPod: string; count: number }>();
  for (const pod of checked) {
    const { meta, spec } = podOf(pod);
    const violations = evaluatePod(enforce, meta, spec);
    if (violations.length === 0) continue;
    const reason = forbiddenReason(violations);
    const name = pod.metadata.name ?? '';
    const seen = byReason.get(reason);
    if (!seen) byReason.set(reason, { firstPod: name, count: 1 });
    else {
      seen.count++;
      if (name < seen.firstPod) seen.firstPod = name;
    }
  }
  const warnings: string[] = [];
  if (checked.length < candidates.length) {
    warnings.push(
      `new PodSecurity enforce level only checked against the first ${checked.length} of ${candidates.length} existing pods`,
    );
  }
  if (byReason.size > 0) {
    warnings.push(
      `existing pods in namespace ${goQuote(namespace)} violate the new PodSecurity enforce level ${goQuote(levelVersionString(enforce))}`,
    );
  }
  const perPod = [...byReason].map(([reason, { firstPod, count }]) => {
    if (count === 1) return `${firstPod}: ${reason}`;
    const others = count - 1;
    return `${firstPod} (and ${others} other ${others === 1 ? 'pod' : 'pods'}): ${reason}`;
  });
  return [...warnings, ...perPod.sort()];
}
