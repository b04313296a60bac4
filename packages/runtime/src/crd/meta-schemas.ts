// zod schemas of the Kubernetes types every API group's status uses, so each CRD describes them the same way.
import { z } from 'zod';

/** metav1.Condition; reason/message stay optional so a controller's first write can be partial */
export const conditionSchema = z.object({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
  observedGeneration: z.number().int().min(0).optional(),
});

/** status.conditions: a map-list keyed by type, as kube's server-side apply merges it */
export const conditionListSchema = z
  .array(conditionSchema)
  .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
