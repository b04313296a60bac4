// LlamaStackDistribution v1alpha1: the published operator's fields, served so existing objects keep
// working. Stored as v1alpha2 through the conversion webhook (docs/llamastack.md, "Versions").
import { z } from 'zod';
import {
  allowedFromSchema,
  autoscalingSchema,
  caBundleSchema,
  commonStatusShape,
  distributionSchema,
  envListSchema,
  passthroughList,
  podDisruptionBudgetSchema,
  resourceRequirementsSchema,
  storageSizeSchema,
} from './common.ts';

export const v1alpha1SpecSchema = z.object({
  replicas: z.int32().min(0).optional(),
  server: z.object({
    distribution: distributionSchema.meta({
      'x-kubernetes-validations': [
        { rule: '!(has(self.name) && has(self.image))', message: 'server.distribution: set name or image, not both' },
        // an empty distribution converts to a v1alpha2 object its own rules refuse: no status could ever be written
        { rule: 'has(self.name) || has(self.image)', message: 'server.distribution: set name or image' },
      ],
    }),
    containerSpec: z
      .object({
        // the server container's name (a DNS label, as a container name must be)
        name: z
          .string()
          .max(63)
          .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
          .optional(),
        port: z.int32().min(0).max(65535).optional(),
        resources: resourceRequirementsSchema.optional(),
        env: envListSchema.optional(),
        command: z.array(z.string()).optional(),
        args: z.array(z.string()).optional(),
      })
      .optional(),
    workers: z.int32().min(1).optional(),
    podOverrides: z
      .object({
        serviceAccountName: z.string().optional(),
        terminationGracePeriodSeconds: z.int().min(0).optional(),
        volumes: passthroughList(),
        volumeMounts: passthroughList(),
      })
      .optional(),
    podDisruptionBudget: podDisruptionBudgetSchema.optional(),
    topologySpreadConstraints: passthroughList(),
    autoscaling: autoscalingSchema.optional(),
    storage: storageSizeSchema.optional(),
    userConfig: z.object({ configMapName: z.string().min(1), configMapNamespace: z.string().optional() }).optional(),
    tlsConfig: z.object({ caBundle: caBundleSchema.optional() }).optional(),
  }),
  network: z.object({ exposeRoute: z.boolean().optional(), allowedFrom: allowedFromSchema.optional() }).optional(),
});

export const v1alpha1StatusSchema = z.object(commonStatusShape);

export type LlamaStackDistributionV1Alpha1Spec = z.infer<typeof v1alpha1SpecSchema>;
export type LlamaStackDistributionV1Alpha1Status = z.infer<typeof v1alpha1StatusSchema>;
