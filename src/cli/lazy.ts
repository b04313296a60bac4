// The lazily loaded commands (dev, load, status, dashboard) import what they run when they run. The image's
// build leaves the dev-only ones out (scripts/build-image.mjs; it keeps the dashboard), as does a checkout
// installed without dev dependencies (no API server, no simulators): there the command says so instead of
// printing a module resolution error.
export async function importCommand<T>(command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    process.stderr.write(
      `modelplane ${command}: a development command, not part of this installation (${(err as Error).message.split('\n')[0]}). Run it from a checkout installed with \`npm ci\`; the image runs only run, provider, dashboard, crds, rbac, render and chart.\n`,
    );
    process.exit(2);
  }
}
