// The Ray Serve application a RayService runs: Ray Serve LLM's OpenAI-compatible app
// (`ray.serve.llm:build_openai_app`, or `build_pd_openai_app` for prefill/decode disaggregation), with vLLM
// configured through engine_kwargs. Upstream's `vllm_serve:deployment` import does not exist in the Ray
// images (docs/kubeairunway.md, PR #116), so it is not reproduced. The engine settings come from the same flag
// derivation Dynamo uses, turned into keyword arguments (`--max-model-len 8192` → `max_model_len: 8192`).
import { stringify } from 'yaml';
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { modelSourceOf, servingModeOf } from '../../validation/index.ts';
import { derivedEngineFlags, renderEngineArgs } from '../common/index.ts';

export const SERVE_APP_NAME = 'llm';
export const AGGREGATED_APP = 'ray.serve.llm:build_openai_app';
export const DISAGGREGATED_APP = 'ray.serve.llm:build_pd_openai_app';
const NIXL_KV_TRANSFER = { kv_connector: 'NixlConnector', kv_role: 'kv_both' };

function coerce(text: string): unknown {
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(text)) return Number(text);
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** vLLM argv as engine kwargs: `--a-b v` / `--a-b=v` → a_b: v (typed), `--flag` → true, `--no-flag` → false */
export function argvToKwargs(argv: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg.length === 2) {
      throw new Error(
        `spec.engine.extraArgs: "${arg}" is not a --flag; KubeRay passes engine settings to vLLM as keyword arguments, so every value must follow its flag`,
      );
    }
    let key = arg.slice(2);
    let value: unknown = true;
    const eq = key.indexOf('=');
    if (eq >= 0) {
      value = coerce(key.slice(eq + 1));
      key = key.slice(0, eq);
    } else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) {
      value = coerce(argv[++i]!);
    } else if (key.startsWith('no-')) {
      key = key.slice(3);
      value = false;
    }
    out[key.replace(/-/g, '_')] = value;
  }
  return out;
}

function llmConfig(
  md: ModelDeployment,
  replicas: number,
  gpus: number,
  disaggregated: boolean,
): Record<string, unknown> {
  const spec = md.spec;
  const id = spec.model?.id;
  if (!id)
    throw new Error(
      'spec.model.id: Ray Serve LLM loads the model from its id (a Hugging Face repository or a path in the image)',
    );
  const kwargs = argvToKwargs(renderEngineArgs(md, derivedEngineFlags(md, 'vllm', { omitModel: true, gpus })));
  if (disaggregated && kwargs.kv_transfer_config === undefined) kwargs.kv_transfer_config = { ...NIXL_KV_TRANSFER };
  const servedName = modelSourceOf(spec) === 'custom' ? undefined : spec.model?.servedName;
  return {
    model_loading_config: { model_id: servedName || id, model_source: id },
    deployment_config: { num_replicas: replicas },
    ...(Object.keys(kwargs).length > 0 ? { engine_kwargs: kwargs } : {}),
  };
}

/** serveConfigV2: the YAML document of the one Serve application, `llm` on route `/` */
export function serveConfigFor(md: ModelDeployment): string {
  const spec = md.spec;
  let app: Record<string, unknown>;
  if (servingModeOf(spec) === 'disaggregated') {
    const { prefill, decode } = spec.scaling ?? {};
    if (!prefill || !decode) throw new Error('spec.scaling: disaggregated mode needs prefill and decode workers');
    app = {
      import_path: DISAGGREGATED_APP,
      args: {
        prefill_config: llmConfig(md, prefill.replicas ?? 1, prefill.gpu?.count ?? 0, true),
        decode_config: llmConfig(md, decode.replicas ?? 1, decode.gpu?.count ?? 0, true),
      },
    };
  } else {
    app = {
      import_path: AGGREGATED_APP,
      args: { llm_configs: [llmConfig(md, spec.scaling?.replicas ?? 1, spec.resources?.gpu?.count ?? 0, false)] },
    };
  }
  return stringify({ applications: [{ name: SERVE_APP_NAME, route_prefix: '/', ...app }] });
}
