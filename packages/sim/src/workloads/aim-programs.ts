// What the AIM images print in `modelplane dev`: a model image's `dry-run --format=json` (the profile JSON a
// real AIM image prints, for discovery Jobs), and the artifact downloader's `check-size` (the size in bytes as
// the last line) and `download` (protocol attempts, progress, completion). The downloader honours
// AIM_DOWNLOADER_PROTOCOL and the debug variable AIM_DEBUG_SIMULATE_HF_FAIL_PROTOCOLS (protocols that fail), so
// protocol switching can be watched; a gated source (`hf://<org>/gated-…`) fails with a 401 unless the
// container has an HF_TOKEN (a value or a secret reference), as the Hugging Face hub does.
// AIM_DEBUG_SIMULATE_DOWNLOAD_MS sets how long a download runs (so its progress can be watched); a download
// prints the protocol it tries first when it starts, a progress line every tenth of its run, the rest when it ends.
import { simModelSource, simSourceSize } from '../registry/index.ts';
import type { Container } from './kinds.ts';

export type AimProgram = 'dry-run' | 'check-size' | 'download';

/** how long an AIM program runs in the simulator */
export const AIM_PROGRAM_RUN_MS = 100;

export function aimProgram(c: Container): AimProgram | undefined {
  const first = c.args?.[0];
  if (first === 'dry-run' && c.args?.includes('--format=json')) return 'dry-run';
  if (first === 'check-size' || first === 'download') return first;
  return undefined;
}

const envOf = (c: Container, name: string) => c.env?.find((e) => e.name === name)?.value;

function protocols(c: Container): { sequence: string[]; failing: Set<string> } {
  const sequence = (envOf(c, 'AIM_DOWNLOADER_PROTOCOL') ?? 'XET,HF_TRANSFER')
    .split(',')
    .map((p) => p.trim().toUpperCase())
    .filter(Boolean);
  const failing = new Set(
    (envOf(c, 'AIM_DEBUG_SIMULATE_HF_FAIL_PROTOCOLS') ?? '')
      .split(',')
      .map((p) => p.trim().toUpperCase())
      .filter(Boolean),
  );
  return { sequence, failing };
}

const gatedUri = (uri: string) => /^hf:\/\/[^/]+\/gated-/.test(uri);

/** how long a download runs when AIM_DEBUG_SIMULATE_DOWNLOAD_MS says so (undefined: the usual moment) */
export function aimDebugRunMs(c: Container): number | undefined {
  if (aimProgram(c) !== 'download') return undefined;
  const ms = Number(envOf(c, 'AIM_DEBUG_SIMULATE_DOWNLOAD_MS'));
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** a gated source this container may not read: no HF_TOKEN */
function denied(c: Container): boolean {
  const token = c.env?.find((e) => e.name === 'HF_TOKEN');
  return gatedUri(c.args?.[1] ?? '') && !(token?.value || token?.valueFrom);
}

/** does this program fail on its own (every protocol failing, or a gated source without a token)? */
export function aimProgramFails(c: Container): boolean {
  const program = aimProgram(c);
  if (program !== 'download' && program !== 'check-size') return false;
  if (denied(c)) return true;
  if (program === 'check-size') return false;
  const { sequence, failing } = protocols(c);
  return sequence.length > 0 && sequence.every((p) => failing.has(p));
}

function dryRun(c: Container): string[] {
  const env = (n: string) => envOf(c, n);
  const source = simModelSource(c.image ?? '');
  const gpu = env('AIM_GPU_MODEL') ?? 'MI300X';
  const profile = {
    filename: `vllm-${gpu.toLowerCase()}-${env('AIM_PRECISION') ?? 'fp16'}-tp${env('AIM_GPU_COUNT') ?? '1'}-${env('AIM_METRIC') ?? 'latency'}.yaml`,
    profile: {
      engine_args: { 'tensor-parallel-size': Number(env('AIM_GPU_COUNT') ?? 1), 'gpu-memory-utilization': 0.9 },
      env_vars: { VLLM_USE_TRITON_FLASH_ATTN: '0' },
      metadata: {
        engine: 'vllm',
        gpu,
        gpu_count: Number(env('AIM_GPU_COUNT') ?? 1),
        metric: env('AIM_METRIC') ?? 'latency',
        precision: env('AIM_PRECISION') ?? 'fp16',
        type: 'optimized',
      },
    },
    models: source
      ? [{ name: source.modelId, source: source.sourceUri, size_gb: Math.round(source.sizeBytes / 1e7) / 100 }]
      : [],
  };
  return [JSON.stringify([profile])];
}

function download(c: Container, now: number): string[] {
  const uri = c.args?.[1] ?? '';
  const total = Number(envOf(c, 'EXPECTED_SIZE_BYTES')) || simSourceSize(uri);
  const { sequence, failing } = protocols(c);
  const stamp = new Date(now).toISOString();
  const lines: string[] = [];
  for (let i = 0; i < sequence.length; i++) {
    const p = sequence[i]!;
    lines.push(`${stamp} INFO Trying protocol ${p} (attempt ${i + 1}/${sequence.length}) for ${uri}`);
    if (denied(c)) {
      lines.push(
        `${stamp} ERROR 401 Client Error: Unauthorized for url: https://huggingface.co/api/models/${uri.slice(5)} (gated repo: authentication required, set HF_TOKEN)`,
      );
      return lines;
    }
    if (failing.has(p)) {
      lines.push(
        `${stamp} WARN protocol ${p} failed: simulated failure (AIM_DEBUG_SIMULATE_HF_FAIL_PROTOCOLS); cleaning .incomplete files${i + 1 < sequence.length ? `, switching to ${sequence[i + 1]}` : ''}`,
      );
      continue;
    }
    for (const pct of [25, 50, 75, 100])
      lines.push(`${stamp} INFO progress ${Math.floor((total * pct) / 100)}/${total} bytes (${pct} %)`);
    lines.push(`${stamp} INFO Download complete via ${p}: ${total} bytes in /cache`);
    return lines;
  }
  lines.push(`${stamp} ERROR every protocol failed (${sequence.join(', ')})`);
  return lines;
}

/** the lines an AIM program prints when it ends (successfully or not) */
export function aimProgramLines(c: Container, now: number): string[] {
  switch (aimProgram(c)) {
    case 'dry-run':
      return dryRun(c);
    case 'check-size': {
      const uri = c.args?.[1] ?? '';
      if (denied(c))
        return [
          `ERROR 401 Client Error: Unauthorized for url: https://huggingface.co/api/models/${uri.slice(5)} (gated repo: authentication required, set HF_TOKEN)`,
        ];
      return [`INFO computing the size of ${uri}`, String(simSourceSize(uri))];
    }
    case 'download':
      // the first line went out when it started (aimProgramStartLines)
      return download(c, now).slice(1);
    default:
      return [];
  }
}

/** the lines an AIM program prints when it starts: a download names the protocol it tries first */
/**
 * A progress line of a download that is `fraction` done, printed while it runs (as the downloader's progress
 * monitor does), so the artifact's status can follow it; a download that is going to fail prints none.
 */
export function aimProgressLine(c: Container, now: number, fraction: number): string | undefined {
  if (aimProgram(c) !== 'download' || denied(c) || protocols(c).failing.size > 0) return undefined;
  const total = Number(envOf(c, 'EXPECTED_SIZE_BYTES')) || simSourceSize(c.args?.[1] ?? '');
  // AIM_DEBUG_SIMULATE_STALL: the transfer stops moving at a fifth (the downloader's stall detection's case)
  if (envOf(c, 'AIM_DEBUG_SIMULATE_STALL') && fraction > 0.2) return undefined;
  const f = Math.max(0, Math.min(0.99, fraction));
  return `${new Date(now).toISOString()} INFO progress ${Math.floor(total * f)}/${total} bytes (${Math.floor(f * 100)} %)`;
}

export function aimProgramStartLines(c: Container, now: number): string[] {
  return aimProgram(c) === 'download' ? download(c, now).slice(0, 1) : [];
}
