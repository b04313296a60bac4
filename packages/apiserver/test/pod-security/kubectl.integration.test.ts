// What kubectl 1.32 users see from PodSecurity admission on the embedded API server: the existing-pod
// warnings of `kubectl label ns … enforce=restricted`, the Forbidden error for a violating pod, the
// `Warning: would violate PodSecurity` line for a Deployment, and the refusal of an invalid label.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '../../src/testing/index.ts';

const BARE = (c: string) =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

const pod = `
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: psa }
spec:
  containers: [{ name: web, image: "nginx:1.27" }]
`;

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: psa }
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: web, image: "nginx:1.27" }]
`;

describe('kubectl and PodSecurity admission', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.k(['create', 'namespace', 'psa']);
  });
  after(async () => {
    await c?.stop();
  });

  it('labelling a namespace restricted warns about the pods already running there', async () => {
    await c.k(['run', 'old', '-n', 'psa', '--image=nginx:1.27']);
    const r = await c.kubectl([
      'label',
      'namespace',
      'psa',
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/warn=restricted',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /namespace\/psa labeled/);
    assert.equal(
      r.stderr,
      'Warning: existing pods in namespace "psa" violate the new PodSecurity enforce level "restricted:latest"\n' +
        'Warning: old: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile\n',
    );
  });

  it('a violating pod is refused with Error from server (Forbidden)', async () => {
    const r = await c.kubectl(['apply', '-f', '-'], { input: pod });
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr,
      `Error from server (Forbidden): error when creating "STDIN": pods "web" is forbidden: violates PodSecurity "restricted:latest": ${BARE('web')}\n`,
    );
  });

  it('a Deployment with a violating template is created with a PodSecurity warning', async () => {
    const r = await c.kubectl(['apply', '-f', '-'], { input: deployment });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment.apps\/web created/);
    assert.equal(r.stderr, `Warning: would violate PodSecurity "restricted:latest": ${BARE('web')}\n`);
  });

  it('an invalid level is refused', async () => {
    const r = await c.kubectl([
      'label',
      'namespace',
      'psa',
      '--overwrite',
      'pod-security.kubernetes.io/enforce=strict',
    ]);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /Namespace "psa" is invalid: metadata\.labels\[pod-security\.kubernetes\.io\/enforce\]: Invalid value: "strict": must be one of privileged, baseline, restricted/,
    );
  });
});
