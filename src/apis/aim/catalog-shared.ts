// Shapes the model-catalogue kinds share (AIMModel, AIMServiceTemplate, AIMTemplateCache, AIMArtifact):
// hardware requirements, model sources, the discovered profile, and the status values. docs/aim.md
// describes what each field does.
import { z } from 'zod';
import { envListSchema, quantitySchema } from './common.ts';

export const METRICS = ['latency', 'throughput'] as const;
export const PRECISIONS = ['auto', 'fp4', 'fp8', 'fp16', 'fp32', 'bf16', 'int4', 'int8'] as const;
export const TEMPLATE_TYPES = ['optimized', 'preview', 'unoptimized'] as const;

/** Pending → Progressing → Ready, or Degraded/Failed/NotAvailable: the states of every catalogue kind */
export const CATALOG_STATUSES = ['Pending', 'Progressing', 'Ready', 'Degraded', 'Failed', 'NotAvailable'] as const;
export type CatalogStatus = (typeof CATALOG_STATUSES)[number];

export const metricSchema = z.enum(METRICS);
export const precisionSchema = z.enum(PRECISIONS);
export const templateTypeSchema = z.enum(TEMPLATE_TYPES);

export const DEFAULT_GPU_RESOURCE = 'amd.com/gpu';

/** AIMHardwareRequirements: a GPU (by model or by minimum VRAM, not both) or a CPU-only workload */
export const hardwareSchema = z
  .object({
    gpu: z
      .object({
        requests: z.int32().min(0).optional(),
        model: z.string().max(64).optional(),
        minVram: quantitySchema.optional(),
        resourceName: z.string().optional(),
      })
      .meta({
        'x-kubernetes-validations': [
          {
            rule: '!(has(self.model) && has(self.minVram))',
            message: 'hardware.gpu: model and minVram are mutually exclusive; set one',
          },
        ],
      })
      .optional(),
    cpu: z.object({ requests: quantitySchema, limits: quantitySchema.optional() }).optional(),
  })
  .meta({
    'x-kubernetes-validations': [{ rule: 'has(self.gpu) || has(self.cpu)', message: 'hardware: set gpu or cpu' }],
  });

export const MODEL_ID_PATTERN = '^[a-zA-Z0-9_-]+/[a-zA-Z0-9._-]+$';
export const SOURCE_URI_PATTERN = '^(hf|s3)://[^ \\t\\r\\n]+$';

/** AIMModelSource: where the weights come from */
export const modelSourceSchema = z.object({
  name: z.string().optional(),
  modelId: z.string().regex(new RegExp(MODEL_ID_PATTERN)).optional(),
  sourceUri: z.string().regex(new RegExp(SOURCE_URI_PATTERN)),
  size: quantitySchema.optional(),
  env: envListSchema.optional(),
});

/** the parameters a template fixes and a service may override */
export const runtimeParametersShape = {
  metric: metricSchema.optional(),
  precision: precisionSchema.optional(),
  hardware: hardwareSchema.optional(),
};

/** what a model image's dry-run prints, parsed (status.profile of a template) */
export const profileSchema = z.object({
  engine_args: z.record(z.string(), z.unknown()).optional(),
  env_vars: z.record(z.string(), z.string()).optional(),
  metadata: z
    .object({
      engine: z.string().optional(),
      gpu: z.string().optional(),
      gpuCount: z.int32().optional(),
      metric: z.string().optional(),
      precision: z.string().optional(),
      type: z.string().optional(),
    })
    .optional(),
  originalDiscoveryOutput: z.string().optional(),
});

export type AIMHardware = z.infer<typeof hardwareSchema>;
export type AIMModelSourceSpec = z.infer<typeof modelSourceSchema>;
export type AIMProfile = z.infer<typeof profileSchema>;
