// Builds the dashboard's front end (web/ → web/dist) with Vite. Run by `npm ci` (postinstall) and, when
// web/dist is missing, by the dashboard on its first start. A checkout installed without dev dependencies
// has no Vite: the build is skipped with a note and the dashboard's API still works.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  require.resolve('vite/package.json');
} catch {
  console.error('build-web: vite is not installed (dev dependencies omitted); the dashboard front end is not built');
  process.exit(0);
}
const started = Date.now();
const { build } = await import('vite');
await build({ configFile: new URL('../web/vite.config.mjs', import.meta.url).pathname });
if (!existsSync(new URL('../web/dist/index.html', import.meta.url))) {
  console.error('build-web: web/dist/index.html was not produced');
  process.exit(1);
}
console.error(`build-web: dashboard front end built in ${Date.now() - started} ms (web/dist)`);
