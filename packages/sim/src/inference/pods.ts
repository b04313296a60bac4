// In `modelplane dev`, every Running pod that serves a model with vLLM gets an inference simulator on its
// own pod IP (the simulated nodes hand out loopback pod IPs, 127.244.<node>.<n>), at the port vLLM would
// listen on. Prometheus then discovers and scrapes these pods as it does on a cluster, and clients reach
// them through their Service (docs/autoscaling.md, "The inference simulator").
//
// A container serves a model when its image or command names vLLM, or the pod is annotated
// sim.modelplane.io/inference: "true". The model is --served-model-name, else --model, else the argument
// after `vllm serve`, else the annotation sim.modelplane.io/model. The port is the annotation
// sim.modelplane.io/inference-port, else --port, else the first container port, else 8000.
// sim.modelplane.io/inference-capacity (JSON) overrides the capacity model.
//
// The other serving stacks are marked by the simulated operator that makes their pods, because only it knows
// what the real stack serves there (packages/sim/src/workloads/README.md, "Pods that serve a model"): KAITO inference
// pods (the preset's name, or the llama.cpp template's model, on port 5000), Dynamo's frontend (the workers'
// served model, port 8000) and Ray Serve pods (the Serve config's model_id, port 8000). Every one of them
// answers the same OpenAI-compatible API, as the real servers do.

import type { ReconcileContext, Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { kindRef } from '@modelplane/runtime/meta';
import type { Container, Pod } from '../workloads/kinds.ts';
import type { CapacityModel } from './engine.ts';
import { type InferenceServer, startInferenceServer } from './server.ts';

export const INFERENCE_ANNOTATION = 'sim.modelplane.io/inference';
export const MODEL_ANNOTATION = 'sim.modelplane.io/model';
export const CAPACITY_ANNOTATION = 'sim.modelplane.io/inference-capacity';
export const PORT_ANNOTATION = 'sim.modelplane.io/inference-port';

/** the annotations a simulated operator puts on a pod template whose pods serve `model` on `port` */
export function servingAnnotations(model: string, port: number): Record<string, string> {
  return { [INFERENCE_ANNOTATION]: 'true', [MODEL_ANNOTATION]: model, [PORT_ANNOTATION]: String(port) };
}

/** the model a container's command line names: --served-model-name, else --model, else `… serve MODEL` (pure) */
export function commandModel(c: CommandLine): string | undefined {
  const words = commandWords(c);
  return flag(words, '--served-model-name') ?? flag(words, '--model') ?? afterServe(words);
}

/** a container (of any of the simulators' container types): commandModel reads its command and args */
export type CommandLine = object;

function commandWords(container: CommandLine): string[] {
  const c = container as { command?: unknown; args?: unknown };
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((w): w is string => typeof w === 'string') : []);
  return [...strings(c.command), ...strings(c.args)].flatMap((w) => w.split(/\s+/)).filter(Boolean);
}

const InferencePods = kindRef<Pod>('v1', 'Pod');

export interface ServedModel {
  model: string;
  port: number;
  capacity: Partial<CapacityModel>;
}

/** what the pod serves, or undefined when it is not a vLLM pod (pure) */
export function servedModel(pod: Pod): ServedModel | undefined {
  const ann = pod.metadata.annotations ?? {};
  for (const c of pod.spec?.containers ?? []) {
    const words = commandWords(c);
    const isVllm =
      ann[INFERENCE_ANNOTATION] === 'true' ||
      isVllmImage(c.image) ||
      words.some((w) => /(^|\/)vllm$/i.test(w) || /^vllm\./i.test(w));
    if (!isVllm) continue;
    const model = commandModel(c) ?? ann[MODEL_ANNOTATION] ?? envValue(c, 'MODEL_ID') ?? envValue(c, 'MODEL');
    if (!model) continue;
    const port = Number(ann[PORT_ANNOTATION] ?? flag(words, '--port') ?? c.ports?.[0]?.containerPort ?? 8000);
    return { model, port, capacity: parseCapacity(ann[CAPACITY_ANNOTATION]) };
  }
  return undefined;
}

/** vllm/vllm-openai, rocm/vllm-dev, …: the image's own name starts with vllm (not e.g. distribution-remote-vllm) */
function isVllmImage(image: string | undefined): boolean {
  const name = (image ?? '').split('@')[0]!.split(':')[0]!.split('/').at(-1) ?? '';
  return /^vllm/i.test(name);
}

function flag(words: string[], name: string): string | undefined {
  for (let i = 0; i < words.length; i++) {
    if (words[i] === name) return words[i + 1];
    if (words[i]!.startsWith(`${name}=`)) return words[i]!.slice(name.length + 1);
  }
  return undefined;
}

function afterServe(words: string[]): string | undefined {
  const i = words.indexOf('serve');
  const next = i >= 0 ? words[i + 1] : undefined;
  return next && !next.startsWith('-') ? next : undefined;
}

function envValue(c: Container, name: string): string | undefined {
  return c.env?.find((e) => e.name === name)?.value;
}

function parseCapacity(text: string | undefined): Partial<CapacityModel> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(v).filter(([, x]) => typeof x === 'number' && x > 0),
    ) as Partial<CapacityModel>;
  } catch {
    return {};
  }
}

export interface InferencePodSimulator {
  /** the running servers by `namespace/pod` */
  readonly servers: ReadonlyMap<string, InferenceServer>;
  close(): Promise<void>;
}

/** starts and stops one inference server per serving pod; register on the simulators' manager */
export function registerInferencePods(mgr: Manager): InferencePodSimulator {
  const servers = new Map<string, InferenceServer>();
  const starting = new Map<string, Promise<void>>();
  const log = mgr.log.child({ component: 'sim-inference' });
  const stop = async (key: string) => {
    const s = servers.get(key);
    if (!s) return;
    servers.delete(key);
    await s.close();
    log.info('inference server stopped', { pod: key });
  };
  mgr
    .controller('sim-inference')
    .for(InferencePods)
    .complete(async (req: Request, ctx: ReconcileContext) => {
      const key = `${req.namespace}/${req.name}`;
      await starting.get(key);
      const pod = await ctx.cache.get(InferencePods, req.name, req.namespace);
      const served =
        pod && !pod.metadata.deletionTimestamp && pod.status?.phase === 'Running' ? servedModel(pod) : undefined;
      const ip = pod?.status?.podIP;
      const running = servers.get(key);
      if (!served || !ip) return stop(key);
      if (running && running.url === `http://${ip}:${served.port}` && running.model === served.model) return;
      await stop(key);
      const p = startInferenceServer({
        host: ip,
        port: served.port,
        model: served.model,
        capacity: served.capacity,
      }).then(
        (s) => {
          servers.set(key, s);
          log.info('inference server started', { pod: key, url: s.url, model: s.model });
        },
        (err: Error) =>
          log.error('inference server could not start (is the pod IP a loopback address?)', {
            pod: key,
            ip,
            error: err.message,
          }),
      );
      starting.set(key, p);
      await p;
      starting.delete(key);
    });
  const close = async () => {
    await Promise.all([...servers.keys()].map(stop));
  };
  mgr.onShutdown(close);
  return { servers, close };
}
