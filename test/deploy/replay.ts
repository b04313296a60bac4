// The image replay: deploy/Dockerfile's stages built into empty folders without a container engine (none can pull
// a base image here). Each stage gets a folder of its own (its root file system): its COPY lines copy exactly
// what they name, from the build context or, with --from, an earlier stage's folder, and its RUN steps run
// there. A .dockerignore is refused rather than half-implemented.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { type CopyStep, type Dockerfile, inFolder, type RunStep } from './dockerfile.ts';

/** copies what one COPY line copies, with Docker's rules: a folder's contents, a file into a folder ending in / */
function copyStep(step: CopyStep, context: string, folder: string, stageFolder: (name: string) => string): void {
  const toDir = step.dest.endsWith('/');
  for (const source of step.sources) {
    const from =
      step.from === undefined ? resolve(context, source) : inFolder(stageFolder(step.from), posix.resolve('/', source));
    if (!existsSync(from))
      throw new Error(
        `COPY ${step.from ? `--from=${step.from} ` : ''}${source}: no such file in the ${step.from ? 'stage' : 'build context'}`,
      );
    const dest = inFolder(folder, step.dest);
    if (statSync(from).isDirectory()) {
      mkdirSync(dest, { recursive: true });
      cpSync(from, dest, { recursive: true });
    } else {
      const target = toDir ? join(dest, posix.basename(source)) : dest;
      mkdirSync(dirname(target), { recursive: true });
      cpSync(from, target);
    }
  }
}

export interface ReplayOptions {
  /** the environment a RUN step's command gets besides the Dockerfile's ENV (PATH, the npm cache, …) */
  env: (step: RunStep) => Record<string, string>;
  /** what a step printed, for the test's log */
  onStep?: (step: string, ms: number) => void;
}

function runStep(step: RunStep, folder: string, opts: ReplayOptions): Promise<void> {
  const [file, args] =
    typeof step.command === 'string' ? ['/bin/sh', ['-c', step.command]] : [step.command[0]!, step.command.slice(1)];
  return new Promise((done, fail) => {
    execFile(
      file,
      args,
      { cwd: inFolder(folder, step.workdir), env: { ...opts.env(step), ...step.env }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) =>
        err
          ? fail(new Error(`RUN ${JSON.stringify(step.command)} failed: ${err.message}\n${stdout}${stderr}`))
          : done(),
    );
  });
}

/**
 * Builds every stage's file system under `folder` (one folder per stage, named by stageFolder), from the build
 * context `context`; returns the image's (the last stage's) root folder.
 */
export async function replayDockerfile(df: Dockerfile, context: string, folder: string, opts: ReplayOptions) {
  if (existsSync(join(context, '.dockerignore')))
    throw new Error('.dockerignore: the replay does not implement it (the COPY lines name what the image holds)');
  const stageFolder = (name: string) => join(folder, `stage-${name}`);
  for (const st of df.stages) {
    const root = stageFolder(st.name);
    mkdirSync(inFolder(root, st.workdir), { recursive: true });
    for (const step of st.steps) {
      const started = Date.now();
      if (step.kind === 'COPY') copyStep(step, context, root, stageFolder);
      else await runStep(step, root, opts);
      const what =
        step.kind === 'COPY'
          ? `COPY ${step.from ? `--from=${step.from} ` : ''}${step.sources.join(' ')} ${step.dest}`
          : `RUN ${step.command}`;
      opts.onStep?.(`[${st.name}] ${what}`, Date.now() - started);
    }
  }
  return stageFolder(df.image.name);
}
