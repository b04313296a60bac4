// What a simulated container prints: a vLLM-style model server (startup banner, weight loading,
// "Application startup complete"), a model downloader (storage initializers, download Jobs), or a generic
// program. Failures end with the lines the real programs print (Python tracebacks, ENOSPC).

import { aimProgram, aimProgramLines, aimProgramStartLines } from './aim-programs.ts';
import type { Container, Pod } from './kinds.ts';

export type ProgramKind = 'model-server' | 'downloader' | 'generic';

export interface LogContext {
  pod: Pod;
  container: Container;
  init: boolean;
  now: number;
}

const DOWNLOADER =
  /storage-initializer|download|huggingface-cli|hf download|snapshot_download|model-fetch|aws s3 (cp|sync)|gsutil|azcopy/i;
const MODEL_SERVER =
  /vllm|sglang|text-generation|\btgi\b|llama|\baim\b|amdenterpriseai|dynamo|triton|kserve|huggingfaceserver|\bray\b|rocm|\bllm|inference|openai/i;

function commandLine(c: Container): string {
  return [c.name, c.image ?? '', ...(c.command ?? []), ...(c.args ?? [])].join(' ');
}

export function programKind(c: Container, init: boolean): ProgramKind {
  const line = commandLine(c);
  if (init || DOWNLOADER.test(line)) return 'downloader';
  if (MODEL_SERVER.test(line)) return 'model-server';
  return 'generic';
}

/** the model a container serves or downloads: --model, `serve <model>`, a source URI argument, or the usual env variables */
export function modelName(c: Container): string {
  const argv = [...(c.command ?? []), ...(c.args ?? [])].flatMap((a) => a.split(/\s+/)).filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '--model' || a === '--model-id' || a === '--model_id' || a === '--served-model-name') && argv[i + 1])
      return argv[i + 1]!;
    const eq = /^--model(?:-id|_id)?=(.+)$/.exec(a);
    if (eq) return eq[1]!;
    if (a === 'serve' && argv[i + 1] && !argv[i + 1]!.startsWith('-')) return argv[i + 1]!;
  }
  // storage initializers take the source URI positionally: hf://org/model, s3://bucket/path, pvc://claim/path
  const uri = argv.find(
    (a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a) && !/^https?:\/\/(0\.0\.0\.0|localhost|127\.)/.test(a),
  );
  if (uri) return uri;
  for (const name of ['MODEL', 'MODEL_ID', 'MODEL_NAME', 'HF_MODEL_ID', 'AIM_MODEL_ID', 'STORAGE_URI']) {
    const v = c.env?.find((e) => e.name === name)?.value;
    if (v) return v;
  }
  return 'model';
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** vLLM's log prefix: `INFO 11-21 06:28:07 [api_server.py:1043]` */
function vllm(level: 'INFO' | 'WARNING' | 'ERROR', now: number, where: string, msg: string): string {
  const d = new Date(now);
  const stamp = `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${level} ${stamp} [${where}] ${msg}`;
}

function isoLine(now: number, msg: string): string {
  return `${new Date(now).toISOString()} ${msg}`;
}

function port(c: Container): number {
  return c.ports?.[0]?.containerPort ?? 8000;
}

export function startLines(ctx: LogContext): string[] {
  const { container: c, now } = ctx;
  if (aimProgram(c) === 'download') return aimProgramStartLines(c, now);
  const model = modelName(c);
  switch (programKind(c, ctx.init)) {
    case 'model-server':
      return [
        vllm('INFO', now, 'api_server.py:1043', 'vLLM API server version 0.8.5'),
        vllm(
          'INFO',
          now,
          'api_server.py:1044',
          `args: Namespace(host=None, port=${port(c)}, model='${model}', tensor_parallel_size=1, gpu_memory_utilization=0.9)`,
        ),
        vllm('INFO', now, 'config.py:689', "This model supports multiple tasks: {generate}. Defaulting to 'generate'."),
        vllm('INFO', now, 'gpu_model_runner.py:1329', `Starting to load model ${model}...`),
      ];
    case 'downloader':
      return [
        isoLine(now, `INFO Initializing, args: src_uri [${model}] dest_path [/mnt/models]`),
        isoLine(now, `INFO Downloading ${model} to /mnt/models`),
      ];
    default:
      return [isoLine(now, `Starting ${c.name} (${c.image ?? 'no image'})`)];
  }
}

export function readyLines(ctx: LogContext): string[] {
  const { container: c, now } = ctx;
  if (programKind(c, ctx.init) !== 'model-server')
    return [isoLine(now, `${c.name} is ready`), 'INFO:     Application startup complete.'];
  return [
    vllm('INFO', now, 'loader.py:458', 'Loading weights took 14.21 seconds'),
    vllm('INFO', now, 'gpu_model_runner.py:1347', 'Model loading took 14.99 GiB and 15.03 seconds'),
    vllm('INFO', now, 'kv_cache_utils.py:634', 'GPU KV cache size: 285,312 tokens'),
    vllm('INFO', now, 'api_server.py:1090', `Starting vLLM API server on http://0.0.0.0:${port(c)}`),
    'INFO:     Started server process [1]',
    'INFO:     Waiting for application startup.',
    'INFO:     Application startup complete.',
  ];
}

export function completeLines(ctx: LogContext): string[] {
  const { container: c, now } = ctx;
  if (aimProgram(c)) return aimProgramLines(c, now);
  if (programKind(c, ctx.init) === 'downloader') {
    return [
      isoLine(now, `INFO Successfully copied ${modelName(c)} to /mnt/models`),
      isoLine(now, 'INFO Download complete'),
    ];
  }
  return [isoLine(now, `${c.name} finished successfully`)];
}

/** the last lines of a run that fails; `custom` replaces the generic crash report */
export function crashLines(
  ctx: LogContext,
  mode: 'OOMKilled' | 'CrashLoopBackOff' | 'DiskFull',
  custom: readonly string[],
): string[] {
  const { container: c, now } = ctx;
  if (mode === 'CrashLoopBackOff' && aimProgram(c)) return aimProgramLines(c, now);
  switch (mode) {
    case 'OOMKilled':
      // the kernel kills the process mid-load: the log just stops
      return programKind(c, ctx.init) === 'model-server'
        ? [vllm('INFO', now, 'weight_utils.py:265', 'Loading safetensors checkpoint shards:  62% Completed | 5/8')]
        : [];
    case 'DiskFull':
      return [
        isoLine(now, `INFO Downloading ${modelName(c)}: model-00003-of-00004.safetensors  43%|████▎     | 2.14G/4.98G`),
        'Traceback (most recent call last):',
        '  File "/usr/local/lib/python3.12/site-packages/huggingface_hub/file_download.py", line 1734, in _download_to_tmp_and_move',
        '    http_get(url_to_download, f, proxies=proxies, resume_size=resume_size, headers=headers, expected_size=expected_size)',
        'OSError: [Errno 28] No space left on device',
      ];
    default:
      if (custom.length > 0) return [];
      return [
        'Traceback (most recent call last):',
        `  File "/app/${c.name}.py", line 42, in <module>`,
        '    main()',
        'RuntimeError: the process exited with an error (simulated by sim.modelplane.io/fail=CrashLoopBackOff)',
      ];
  }
}
