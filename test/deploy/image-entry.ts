// The image's entry for suites that run the chart's containers on this machine (test/deploy/processes.ts):
// the bundle deploy/Dockerfile's build stage makes (scripts/build-image.mjs), built into a temporary folder laid
// out like the image's WORKDIR (the bundle holds its npm dependencies: it needs no node_modules beside it), and
// the image's ENTRYPOINT and ENV read from the Dockerfile. A container then runs exactly as in the image: the
// same file, the chart's args, the image's environment.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ContainerCommand, containerCommand, parseDockerfile, type Stage } from './dockerfile.ts';

export interface ImageEntry {
  image: Stage;
  /** the folder standing for the image's WORKDIR */
  appDir: string;
  /** the process a container with this `command`/`args` runs */
  command(container: { command?: string[]; args?: string[] }): ContainerCommand;
  remove(): void;
}

export async function buildImageEntry(): Promise<ImageEntry> {
  const image = parseDockerfile(readFileSync('deploy/Dockerfile', 'utf8')).image;
  const appDir = mkdtempSync(join(tmpdir(), 'modelplane-image-entry-'));
  // the test runner built the same bundle once for the run (scripts/operator-bundle.mjs): copy it
  const prebuilt = process.env.MODELPLANE_TEST_OPERATOR_BUNDLE;
  if (prebuilt) cpSync(dirname(prebuilt), join(appDir, 'dist'), { recursive: true });
  else
    await new Promise<void>((done, fail) =>
      execFile(process.execPath, ['scripts/build-image.mjs', join(appDir, 'dist')], (err, _out, stderr) =>
        err ? fail(new Error(`scripts/build-image.mjs failed: ${stderr}`)) : done(),
      ),
    );
  return {
    image,
    appDir,
    command: (container) => containerCommand(image, appDir, container),
    remove: () => rmSync(appDir, { recursive: true, force: true }),
  };
}
