// What the autoscaler's end-to-end tests share: the engine's `scaling decision` log lines, timed as they are
// written (the explanation each replica change must have), the optimization interval, and the scale-to-zero
// example (examples/autoscaling/scale-to-zero.yaml) with a test's window and KEDA timings.
import { readFileSync } from 'node:fs';
import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseAllDocuments } from 'yaml';

export interface LoggedDecision {
  /** Date.now() when the line was written */
  at: number;
  variantAutoscaling: string;
  from: number;
  to: number;
  action: string;
  reason: string;
}

/** a log sink (for `new Logger({}, 'info', sink)`) that keeps every `scaling decision` line */
export function decisionSink(into: LoggedDecision[]): { write(line: string): void } {
  return {
    write(line: string) {
      try {
        const l = JSON.parse(line) as Record<string, unknown>;
        if (l.msg === 'scaling decision')
          into.push({
            at: Date.now(),
            variantAutoscaling: String(l.variantAutoscaling),
            from: Number(l.from),
            to: Number(l.to),
            action: String(l.action),
            reason: String(l.reason),
          });
      } catch {
        // not a JSON line
      }
    },
  };
}

export async function setOptimizationInterval(client: KubeClient, interval: string): Promise<void> {
  await client.apply({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'workload-variant-autoscaler-variantautoscaling-config',
      namespace: 'workload-variant-autoscaler-system',
    },
    data: { GLOBAL_OPT_INTERVAL: interval },
  } as KubeObject);
}

export const SCALE_TO_ZERO_EXAMPLE = {
  namespace: 'llm-scale-to-zero',
  name: 'llama-1b-l4',
  model: 'meta-llama/Llama-3.2-1B-Instruct',
};

export interface ScaleToZeroExampleOptions {
  windowSeconds: number;
  prometheusUrl: string;
  /** the inference simulator's capacity JSON for the Deployment's pods */
  capacity: string;
  keda: { pollingInterval: number; cooldownPeriod: number; initialCooldownPeriod: number };
}

/**
 * Applies examples/autoscaling/scale-to-zero.yaml with the test's retention window, capacity and Prometheus,
 * all but the ScaledObject, which it returns (to apply once the first decision is published)
 */
export async function applyScaleToZeroExample(client: KubeClient, o: ScaleToZeroExampleOptions): Promise<KubeObject> {
  let scaledObject: KubeObject | undefined;
  for (const doc of parseAllDocuments(readFileSync('examples/autoscaling/scale-to-zero.yaml', 'utf8'))) {
    const obj = doc.toJS() as KubeObject & { spec?: Record<string, unknown>; data?: Record<string, string> };
    if (obj.kind === 'ConfigMap')
      obj.data = {
        'llama-1b': `model_id: ${SCALE_TO_ZERO_EXAMPLE.model}\nenable_scale_to_zero: true\nretention_period: ${o.windowSeconds}s\n`,
      };
    if (obj.kind === 'Deployment') {
      const template = (obj.spec as { template: { metadata: { annotations: Record<string, string> } } }).template;
      template.metadata.annotations['sim.modelplane.io/inference-capacity'] = o.capacity;
    }
    if (obj.kind === 'ScaledObject') {
      const spec = obj.spec as Record<string, unknown> & { triggers: Array<{ metadata: Record<string, string> }> };
      Object.assign(spec, o.keda);
      for (const t of spec.triggers) t.metadata.serverAddress = o.prometheusUrl;
      scaledObject = obj;
      continue;
    }
    await client.apply(obj);
  }
  if (!scaledObject) throw new Error('examples/autoscaling/scale-to-zero.yaml has no ScaledObject');
  return scaledObject;
}
