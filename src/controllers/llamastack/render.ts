// `modelplane render` for LlamaStackDistribution: the same fetch → observe → plan the controller runs,
// over the objects of the input file. Offline nothing reports status, so a referenced ModelDeployment or
// AIMService without an endpoint is assumed to serve at its own Service name (and the output says so).

import type { KubeObject } from '@modelplane/runtime/meta';
import { type LlamaStackDistribution, normalizeV1Alpha2Spec } from '../../apis/llamastack/index.ts';
import { FetchResult, type ObjectReader, prepareForApply, type ReadClient, SILENT_LOG } from '../../engine/index.ts';
import { endpointOf, observe } from './observe.ts';
import { configSource, planLlamaStack } from './plan.ts';
import { llamaStackReconciler } from './reconciler.ts';

export interface LlamaStackRender {
  objects: KubeObject[];
  problems: string[];
}

export async function renderLlamaStack(
  input: LlamaStackDistribution,
  reader: ObjectReader,
  client: ReadClient,
  operatorNamespace: string,
): Promise<LlamaStackRender> {
  const cr = { ...input, spec: normalizeV1Alpha2Spec(input.spec) };
  const ns = cr.metadata.namespace ?? 'default';
  const problems: string[] = [];
  const fetched = await llamaStackReconciler({ operatorNamespace, byName: reader }).fetchRemoteState({
    object: cr,
    reader,
    client,
    log: SILENT_LOG,
    runtimeConfig: undefined,
  });
  const refs = fetched.refs.map((r) => {
    if (endpointOf(r, ns)) return r;
    problems.push(
      `${r.field}: ${r.kind} ${r.name} reports no endpoint offline; assumed http://${r.name}.${ns}.svc.cluster.local/v1`,
    );
    const assumed = {
      apiVersion: 'v1',
      kind: r.kind,
      metadata: { name: r.name, namespace: ns },
      status: { endpoint: { service: r.name } },
    } as KubeObject;
    return { ...r, object: FetchResult.of(assumed) };
  });
  const obs = observe(cr, { ...fetched, refs });
  const { problem } = configSource(cr, obs);
  if (!obs.image.ok) problems.push(`ConfigGenerated: ${obs.image.message}`);
  else if (obs.config.kind === 'failed')
    problems.push(`ConfigGenerated: ${obs.config.error.reason}: ${obs.config.error.message}`);
  else if (problem) problems.push(`ConfigGenerated: ${problem}`);
  for (const p of obs.secretProblems) problems.push(`SecretsResolved: ${p.reason}: ${p.message}`);
  for (const s of obs.overridesSkipped) problems.push(`image-overrides: ${s}`);
  const plan = planLlamaStack(cr, obs, operatorNamespace);
  return {
    objects: plan.applies.map((o) => prepareForApply(o, cr, [], { parent: cr, runtimeConfig: undefined })),
    problems,
  };
}
