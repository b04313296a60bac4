// Checked-in files derived from sources stay in step with them: deploy/crds/modelplane.yaml is what
// `modelplane crds` prints (`npm run gen:crds`), deploy/rbac/modelplane.yaml what `modelplane rbac` prints
// (`npm run gen:rbac`), and examples/aim/ holds seed 000's YAML examples unchanged.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { crdsYaml } from '../../src/cli/crds.ts';
import { rbacYaml } from '../../src/cli/rbac.ts';

describe('generated and copied files', () => {
  it('deploy/crds/modelplane.yaml equals `modelplane crds` (run `npm run gen:crds` after changing an API)', () => {
    assert.equal(readFileSync('deploy/crds/modelplane.yaml', 'utf8'), crdsYaml());
  });

  it('deploy/rbac/modelplane.yaml equals `modelplane rbac` (run `npm run gen:rbac` after changing a controller set)', () => {
    assert.equal(readFileSync('deploy/rbac/modelplane.yaml', 'utf8'), rbacYaml());
  });

  it('examples/aim/ holds every full YAML example of seed 000, unchanged and in order', () => {
    const seed = readFileSync(resolve('../shared/seeds/000_80f16cd2ba88f2be.txt'), 'utf8');
    const full = [...seed.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /^apiVersion:/m.test(b));
    const files = readdirSync('examples/aim').filter((f) => f.endsWith('.yaml')).sort();
    assert.equal(files.length, full.length);
    files.forEach((f, i) => {
      const body = readFileSync(`examples/aim/${f}`, 'utf8').replace(/^# .*\n/, '');
      assert.equal(body, full[i], f);
    });
  });
});
