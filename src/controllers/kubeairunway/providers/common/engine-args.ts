// The command-line flags of the inference engines, derived from the unified spec. One place for the mapping
// (Dynamo passes them as argv, KubeRay turns them into vLLM engine kwargs), rendered deterministically:
// derived flags in a fixed order, then spec.engine.args sorted by key, then spec.engine.extraArgs as
// written. A derived flag is left out when the user passes the same flag, so the user's value is the only one.
import type { EngineType, ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { modelSourceOf } from '../../validation/index.ts';

export interface Flag {
  /** without the leading dashes */
  key: string;
  value?: string;
  /** other spellings of the same setting: the flag is left out when the user passes any of them */
  aliases?: string[];
}

export interface EngineFlagOptions {
  /** leave out the model and served-name flags (KubeRay names the model in its Serve config instead) */
  omitModel?: boolean;
  /** GPUs per engine instance: tensor parallelism above 1 */
  gpus?: number;
}

/** `--flag`, `--flag=value` or `-flag` → `flag` */
export function flagKey(arg: string): string {
  return arg.replace(/^-+/, '').split('=')[0] ?? '';
}

/** the settings the unified spec carries, as the engine's own flags */
export function derivedEngineFlags(md: ModelDeployment, engine: EngineType, opts: EngineFlagOptions = {}): Flag[] {
  const spec = md.spec;
  const e = spec.engine ?? {};
  const flags: Flag[] = [];
  const custom = modelSourceOf(spec) === 'custom';
  if (!opts.omitModel) {
    // a custom image has its model baked in: the image decides where it is and what it is called
    if (spec.model?.id && !custom)
      flags.push({ key: engine === 'vllm' ? 'model' : 'model-path', value: spec.model.id });
    if (spec.model?.servedName && !custom) flags.push({ key: 'served-model-name', value: spec.model.servedName });
  }
  if (e.contextLength !== undefined && engine !== 'trtllm') {
    flags.push({ key: engine === 'sglang' ? 'context-length' : 'max-model-len', value: String(e.contextLength) });
  }
  if (e.trustRemoteCode === true && engine !== 'trtllm') flags.push({ key: 'trust-remote-code' });
  const prefixCaching = e.enablePrefixCaching ?? true;
  if (engine === 'vllm') {
    flags.push(
      prefixCaching
        ? { key: 'enable-prefix-caching', aliases: ['no-enable-prefix-caching'] }
        : { key: 'no-enable-prefix-caching', aliases: ['enable-prefix-caching'] },
    );
    if (e.enforceEager === true) flags.push({ key: 'enforce-eager' });
  } else if (engine === 'sglang') {
    // SGLang's prefix cache (the radix cache) and CUDA graphs are on unless disabled
    if (!prefixCaching) flags.push({ key: 'disable-radix-cache' });
    if (e.enforceEager === true) flags.push({ key: 'disable-cuda-graph' });
  }
  const gpus = opts.gpus ?? 0;
  if (gpus > 1)
    flags.push(
      engine === 'sglang'
        ? { key: 'tp-size', value: String(gpus), aliases: ['tp', 'tensor-parallel-size'] }
        : { key: 'tensor-parallel-size', value: String(gpus), aliases: ['tp'] },
    );
  return flags;
}

/** the flags the user passes in spec.engine.args and spec.engine.extraArgs */
export function userFlagKeys(md: ModelDeployment): Set<string> {
  const e = md.spec.engine ?? {};
  return new Set([
    ...Object.keys(e.args ?? {}).map((k) => k.replace(/^-+/, '')),
    ...(e.extraArgs ?? []).filter((a) => a.startsWith('-')).map(flagKey),
  ]);
}

/** argv: the derived flags the user did not pass themselves, then spec.engine.args (sorted), then extraArgs */
export function renderEngineArgs(md: ModelDeployment, derived: Flag[]): string[] {
  const e = md.spec.engine ?? {};
  const user = userFlagKeys(md);
  const out: string[] = [];
  for (const f of derived) {
    if (user.has(f.key) || f.aliases?.some((a) => user.has(a))) continue;
    out.push(`--${f.key}`, ...(f.value === undefined ? [] : [f.value]));
  }
  for (const key of Object.keys(e.args ?? {}).sort()) {
    const value = e.args![key]!;
    out.push(`--${key.replace(/^-+/, '')}`, ...(value === '' ? [] : [value]));
  }
  out.push(...(e.extraArgs ?? []));
  return out;
}
