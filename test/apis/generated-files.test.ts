// Checked-in files derived from sources stay in step with them: deploy/crds/modelplane.yaml is what
// `modelplane crds` prints (`npm run gen:crds`), deploy/rbac/modelplane.yaml what `modelplane rbac` prints
// (`npm run gen:rbac`), and examples/aim/ holds the AIM design's YAML examples unchanged.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { crdsYaml } from '../../src/cli/crds.ts';
import { rbacYaml } from '../../src/cli/rbac.ts';

/** sha256 of each example as the AIM design prints it (the file without its first comment line) */
const DESIGN_EXAMPLE_SHA256 = [
  '60dd594548d0305b48a7ea2e048763b038d62705a0f415c4d15a1ff2f0b85b26',
  'b889c8d38c67acb82c769813a3fc232ebf6f1278c970a0d2fbc86f90c00e9909',
  '5f2fb10937181028e0afc49ea1c9b006bbddb7a7e64796d8a083d4d38d41adec',
  'f5ba7177183bb4762b8080ebe4f27e345328f36ee87e03d5e54dfa773c58863c',
  'aa3b1acfa8acd305e9aecd5e2a6e11b02d668f5252e8e7b9a3df74cc4601b880',
  '583e55ca6fb0def579bd6765db9f3518a3ee73a9870b4bc354a5ab15566aa759',
  'f7a475578927d13e21fe899d3a4ce14d6a60713c67d5eaa7f4903214823d649b',
  'fe540e5110a785e0a43a8d0348652a1bdef9abfbf3c6acc1d6f126264129b0e8',
  '6f59b7e732bb0cfc7ea77a1b4ba86f6f4dcd2cedc69b1684a0874a9f6f06ac39',
];

describe('generated and copied files', () => {
  it('deploy/crds/modelplane.yaml equals `modelplane crds` (run `npm run gen:crds` after changing an API)', () => {
    assert.equal(readFileSync('deploy/crds/modelplane.yaml', 'utf8'), crdsYaml());
  });

  it('deploy/rbac/modelplane.yaml equals `modelplane rbac` (run `npm run gen:rbac` after changing a controller set)', () => {
    assert.equal(readFileSync('deploy/rbac/modelplane.yaml', 'utf8'), rbacYaml());
  });

  it("examples/aim/ holds the AIM design's nine full YAML examples, byte for byte as the design prints them", () => {
    const files = readdirSync('examples/aim')
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    const digests = files.map((f) =>
      createHash('sha256')
        .update(readFileSync(`examples/aim/${f}`, 'utf8').replace(/^# .*\n/, ''))
        .digest('hex'),
    );
    assert.deepEqual(
      digests,
      DESIGN_EXAMPLE_SHA256,
      "an example was edited: the design's examples must apply unchanged (docs/aim.md)",
    );
  });
});
