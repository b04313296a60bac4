// deploy/Dockerfile read for the image replay (replay.ts; no container engine can pull a base image here): its
// stages and their instructions parsed, and the image's ENTRYPOINT mapped onto a folder, so a test starts
// exactly what the image would. It takes the instructions the Dockerfile uses and refuses the rest by name
// (ADD, ARG, globs): a Dockerfile the replay cannot follow fails the test instead of being half-checked.
import { join, posix } from 'node:path';

export interface CopyStep {
  kind: 'COPY';
  /** the stage copied from (`--from`), or undefined for the build context */
  from: string | undefined;
  /** paths relative to the build context, or absolute in the stage copied from */
  sources: string[];
  /** absolute in the image (relative destinations are resolved against the WORKDIR of the time) */
  dest: string;
}

export interface RunStep {
  kind: 'RUN';
  /** the shell command (`sh -c`), or the argv of the JSON form */
  command: string | string[];
  /** BuildKit `--mount=type=cache,target=…` targets: caches kept outside the image's layers */
  cacheMounts: string[];
  workdir: string;
  env: Record<string, string>;
}

export interface Stage {
  /** the base image */
  from: string;
  /** `AS <name>`, or the stage's index */
  name: string;
  steps: Array<CopyStep | RunStep>;
  /** ENV at the end of the stage: what the image's processes get */
  env: Record<string, string>;
  workdir: string;
  user: string | undefined;
  entrypoint: string[];
  cmd: string[];
}

/** the stages in order; the last one is the image */
export interface Dockerfile {
  stages: Stage[];
  /** the image: the last stage */
  image: Stage;
}

/** instructions as [KEYWORD, rest], with line continuations joined and comments dropped */
function instructions(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trimEnd()} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full === '') continue;
    const m = /^(\S+)\s*(.*)$/.exec(full)!;
    out.push([m[1]!.toUpperCase(), m[2]!]);
  }
  return out;
}

/** leading `--name=value` flags of an instruction, and the rest */
function flags(rest: string): { flags: Record<string, string[]>; rest: string } {
  const found: Record<string, string[]> = {};
  let r = rest;
  for (let m = /^--([a-z-]+)=(\S+)\s+/.exec(r); m; m = /^--([a-z-]+)=(\S+)\s+/.exec(r)) {
    (found[m[1]!] ??= []).push(m[2]!);
    r = r.slice(m[0].length);
  }
  return { flags: found, rest: r };
}

const jsonForm = (rest: string): string[] | undefined =>
  rest.startsWith('[') ? (JSON.parse(rest) as string[]) : undefined;

function parseEnv(rest: string, env: Record<string, string>): void {
  if (!rest.includes('=')) {
    const [key, ...value] = rest.split(/\s+/);
    env[key!] = value.join(' ');
    return;
  }
  for (const m of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g))
    env[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
}

function cacheMounts(mounts: string[] = []): string[] {
  return mounts.map((spec) => {
    const fields = Object.fromEntries(spec.split(',').map((kv) => kv.split('=') as [string, string]));
    if (fields.type !== 'cache' || !fields.target)
      throw new Error(`RUN --mount=${spec}: the replay implements only type=cache mounts with a target`);
    return fields.target;
  });
}

function parseCopy(rest: string, workdir: string, stages: Stage[]): CopyStep {
  const { flags: f, rest: r } = flags(rest);
  const from = f.from?.[0];
  if (from !== undefined && !stages.some((st) => st.name === from))
    throw new Error(`COPY --from=${from}: no earlier stage has that name (the replay copies only from stages)`);
  const words = jsonForm(r) ?? r.split(/\s+/);
  const sources = words.slice(0, -1);
  const dest = posix.resolve(workdir, words.at(-1)!);
  for (const s of sources)
    if (/[*?[]/.test(s)) throw new Error(`COPY ${s}: the replay does not expand wildcards; name the paths`);
  if (sources.length > 1 && !words.at(-1)!.endsWith('/'))
    throw new Error(`COPY ${r}: with several sources the destination must end with /`);
  return { kind: 'COPY', from, sources, dest: words.at(-1)!.endsWith('/') ? `${dest}/` : dest };
}

function newStage(rest: string, index: number): Stage {
  const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
  if (!m) throw new Error(`FROM ${rest}: expected FROM <image> [AS <name>]`);
  return {
    from: m[1]!,
    name: m[2] ?? String(index),
    steps: [],
    env: {},
    workdir: '/',
    user: undefined,
    entrypoint: [],
    cmd: [],
  };
}

/** one instruction applied to the current stage */
function apply(st: Stage, keyword: string, rest: string, stages: Stage[]): void {
  switch (keyword) {
    case 'ENV':
      parseEnv(rest, st.env);
      return;
    case 'WORKDIR':
      st.workdir = posix.resolve(st.workdir, rest);
      return;
    case 'COPY':
      st.steps.push(parseCopy(rest, st.workdir, stages));
      return;
    case 'RUN': {
      const { flags: f, rest: r } = flags(rest);
      const command = jsonForm(r) ?? r;
      st.steps.push({
        kind: 'RUN',
        command,
        cacheMounts: cacheMounts(f.mount),
        workdir: st.workdir,
        env: { ...st.env },
      });
      return;
    }
    case 'USER':
      st.user = rest;
      return;
    case 'ENTRYPOINT':
      st.entrypoint = jsonForm(rest) ?? ['/bin/sh', '-c', rest];
      return;
    case 'CMD':
      st.cmd = jsonForm(rest) ?? ['/bin/sh', '-c', rest];
      return;
    case 'LABEL':
    case 'EXPOSE':
      return;
    default:
      throw new Error(`${keyword} ${rest}: the replay does not implement ${keyword}`);
  }
}

export function parseDockerfile(text: string): Dockerfile {
  const stages: Stage[] = [];
  for (const [keyword, rest] of instructions(text)) {
    if (keyword === 'FROM') stages.push(newStage(rest, stages.length));
    else if (stages.length === 0) throw new Error(`${keyword} before the first FROM`);
    else apply(stages.at(-1)!, keyword, rest, stages.slice(0, -1));
  }
  if (stages.length === 0) throw new Error('no FROM');
  return { stages, image: stages.at(-1)! };
}

/** where an absolute image path lands in the replay folder */
export function inFolder(folder: string, imagePath: string): string {
  return join(folder, posix.relative('/', imagePath));
}

export interface ContainerCommand {
  file: string;
  args: string[];
  cwd: string;
}

/**
 * The process a container of the image runs, as Kubernetes decides it (a container's `command` replaces the
 * ENTRYPOINT, its `args` the CMD), with the image's paths mapped onto `folder` (the replay folder, or the
 * repository itself, whose layout the image keeps under its WORKDIR). `node` is this Node binary.
 */
export function containerCommand(
  image: Stage,
  folder: string,
  container: { command?: string[]; args?: string[] } = {},
): ContainerCommand {
  const argv = [
    ...(container.command ?? image.entrypoint),
    ...(container.args ?? (container.command ? [] : image.cmd)),
  ];
  const mapped = argv.map((a) =>
    a.startsWith(`${image.workdir}/`) ? join(folder, posix.relative(image.workdir, a)) : a,
  );
  const file = mapped[0] === 'node' ? process.execPath : mapped[0]!;
  return { file, args: mapped.slice(1), cwd: folder };
}
