// The generated built-in kinds (src/builtin/kinds.generated.ts) are what the generator makes from the
// installed client-node models, and they keep the wire form the API server speaks.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const GENERATED = readFileSync('packages/apimachinery/src/builtin/kinds.generated.ts', 'utf8');

/** the body of one generated interface, field by field */
function fieldsOf(name: string): Map<string, string> {
  const m = new RegExp(`^export interface ${name} (?:extends KubeObject )?\\{\\n([\\s\\S]*?)^\\}`, 'm').exec(GENERATED);
  assert.ok(m, `no interface ${name}`);
  return new Map([...m[1]!.matchAll(/^\s+'?([\w$-]+)'?(\??): (.+);$/gm)].map((f) => [f[1]! + f[2]!, f[3]!]));
}

describe('generated built-in kinds', () => {
  it('the checked-in file is what the generator makes from the installed client-node', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'packages/apimachinery/scripts/gen-builtin-kinds.ts', '--check'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, r.stderr);
  });

  it('keeps the OpenAPI required fields required and the rest optional', () => {
    assert.equal(fieldsOf('PodSpec').get('containers'), 'Array<Container>');
    assert.equal(fieldsOf('Container').get('name'), 'string');
    assert.equal(fieldsOf('Container').get('image?'), 'string');
    assert.equal(fieldsOf('Pod').get('spec?'), 'PodSpec');
    assert.equal(fieldsOf('DeploymentSpec').get('selector'), 'LabelSelector');
  });

  it('speaks the wire form: timestamps and quantities as strings, int-or-string as a union', () => {
    assert.equal(fieldsOf('ContainerStateRunning').get('startedAt?'), 'string');
    assert.equal(fieldsOf('ResourceRequirements').get('limits?'), 'Record<string, string>');
    assert.equal(fieldsOf('HTTPGetAction').get('port'), 'number | string');
    assert.equal(fieldsOf('Event').get('eventTime'), 'string');
  });

  it('uses the one ObjectMeta and Condition of this package, and qualifies names that collide', () => {
    assert.doesNotMatch(GENERATED, /^export interface (ObjectMeta|Condition) /m);
    assert.match(GENERATED, /^export interface CoreEvent extends KubeObject \{/m);
    assert.match(GENERATED, /^export interface Event extends KubeObject \{/m);
    const names = [...GENERATED.matchAll(/^export interface (\w+)/gm)].map((m) => m[1]);
    assert.equal(
      new Set(names).size,
      names.length,
      'an interface name is declared twice (TypeScript would merge them)',
    );
  });
});
