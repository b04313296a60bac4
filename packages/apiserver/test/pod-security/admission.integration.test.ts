// PodSecurity admission over HTTP against the embedded API server: 403 for pods breaking the namespace's
// enforce level (dry runs included), Warning headers for pods and pod-template workloads under the warn
// level, pinned policy versions, invalid labels (refused on namespaces, enforced as restricted:latest on
// pods), the existing-pod warnings when a namespace's enforce level is tightened, and which updates and
// subresources are checked at all.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { partsOf } from '../../src/handle.ts';
import { type ApiServer, startApiServer } from '../../src/index.ts';

interface Reply {
  status: number;
  body: any;
  warnings: string[];
}

/** One request; `warnings` are the Warning headers' texts, unquoted (each header kept apart). */
function call(
  s: ApiServer,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${s.url}${path}`,
      {
        method,
        ca: s.caPem,
        headers: { Authorization: `Bearer ${s.adminToken}`, ...(data ? { 'Content-Type': contentType } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const warnings = (res.headersDistinct.warning ?? []).map((w) => {
            const m = /^299 - "(.*)"$/.exec(w);
            assert.ok(m, `malformed Warning header ${w}`);
            return m[1]!.replace(/\\(.)/g, '$1');
          });
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, warnings });
        });
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

const RESTRICTED_LATEST_BARE = (c: string) =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

const barePod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra },
});

const restrictedPod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        name: 'c',
        image: 'nginx:1.27',
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
  },
});

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
const workloads: Array<{ path: string; body: Record<string, unknown> }> = [
  {
    path: '/apis/apps/v1/namespaces/NS/deployments',
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template },
    },
  },
  {
    path: '/apis/apps/v1/namespaces/NS/replicasets',
    body: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template },
    },
  },
  {
    path: '/apis/batch/v1/namespaces/NS/jobs',
    body: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'web' },
      spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } },
    },
  },
];

let s: ApiServer;
let counter = 0;

async function namespace(labels: Record<string, string>): Promise<string> {
  const name = `psa-${++counter}`;
  const r = await call(s, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return name;
}

const createPod = (ns: string, pod: unknown, query = '') =>
  call(s, 'POST', `/api/v1/namespaces/${ns}/pods${query}`, pod);
const label = (ns: string, labels: Record<string, string | null>) =>
  call(s, 'PATCH', `/api/v1/namespaces/${ns}`, { metadata: { labels } }, 'application/merge-patch+json');

before(async () => {
  s = await startApiServer({ port: 0 });
});
after(async () => {
  await s.close();
});

describe('PodSecurity enforce', () => {
  it("refuses a pod breaking the enforce level with kube's 403 Status, admits a compliant one", async () => {
    const ns = await namespace({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const r = await createPod(ns, barePod('bare'));
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `pods "bare" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_LATEST_BARE('c')}`,
      reason: 'Forbidden',
      details: { name: 'bare', kind: 'pods' },
      code: 403,
    });
    assert.deepEqual(r.warnings, [], 'a refused pod gets no warnings on top');
    const ok = await createPod(ns, restrictedPod('good'));
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.warnings, []);
  });

  it('evaluates dry runs and generated names too', async () => {
    const ns = await namespace({ 'pod-security.kubernetes.io/enforce': 'baseline' });
    const privileged = barePod('p', { hostNetwork: true });
    const dry = await createPod(ns, privileged, '?dryRun=All');
    assert.equal(dry.status, 403);
    assert.equal(
      dry.body.message,
      'pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork)',
    );
    const generated = await createPod(ns, { ...privileged, metadata: { generateName: 'gen-' } });
    assert.equal(generated.status, 403);
    assert.match(
      generated.body.message,
      /^pods "gen-[a-z0-9]{5}" is forbidden: violates PodSecurity "baseline:latest"/,
    );
  });

  it('checks pod updates that change images, not label or status updates of pods admitted earlier', async () => {
    const ns = await namespace({});
    assert.equal((await createPod(ns, barePod('old'))).status, 201);
    assert.equal((await label(ns, { 'pod-security.kubernetes.io/enforce': 'restricted' })).status, 200);
    const relabel = await call(
      s,
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/old`,
      { metadata: { labels: { tier: 'web' } } },
      'application/merge-patch+json',
    );
    assert.equal(relabel.status, 200, JSON.stringify(relabel.body));
    const status = await call(
      s,
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/old/status`,
      { status: { phase: 'Running' } },
      'application/merge-patch+json',
    );
    assert.equal(status.status, 200, JSON.stringify(status.body));
    const image = await call(
      s,
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/old`,
      { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } },
      'application/strategic-merge-patch+json',
    );
    assert.equal(image.status, 403);
    assert.equal(
      image.body.message,
      `pods "old" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_LATEST_BARE('c')}`,
    );
  });

  it('does not enforce on pod templates, and nothing is exempt by default: kube-system included', async () => {
    const ns = await namespace({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    for (const w of workloads) {
      const r = await call(s, 'POST', w.path.replace('NS', ns), w.body);
      assert.equal(r.status, 201, `${w.body.kind}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.warnings, []);
    }
    assert.equal((await label('kube-system', { 'pod-security.kubernetes.io/enforce': 'baseline' })).status, 200);
    const r = await createPod('kube-system', barePod('sys', { hostPID: true }));
    assert.equal(r.status, 403);
    assert.equal((await label('kube-system', { 'pod-security.kubernetes.io/enforce': null })).status, 200);
    assert.equal((await createPod('kube-system', barePod('sys', { hostPID: true }))).status, 201);
  });

  it('pins the policy version: restricted:v1.21 predates the capabilities rule, v1.24 the Windows exemption', async () => {
    const ns = await namespace({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'v1.21',
    });
    const noDrop = restrictedPod('nodrop');
    delete (noDrop.spec.containers[0]!.securityContext as { capabilities?: unknown }).capabilities;
    assert.equal((await createPod(ns, noDrop)).status, 201);
    const r = await createPod(ns, barePod('bare'));
    assert.equal(r.status, 403);
    assert.equal(
      r.body.message,
      'pods "bare" is forbidden: violates PodSecurity "restricted:v1.21": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    const windows = barePod('win', { os: { name: 'windows' }, securityContext: { runAsNonRoot: true } });
    assert.equal((await label(ns, { 'pod-security.kubernetes.io/enforce-version': 'v1.24' })).status, 200);
    assert.equal((await createPod(ns, windows)).status, 403);
    assert.equal((await label(ns, { 'pod-security.kubernetes.io/enforce-version': 'v1.25' })).status, 200);
    assert.equal((await createPod(ns, windows)).status, 201);
  });
});

describe('PodSecurity warn', () => {
  it("warns on pods and on every pod-template kind served, with kube's text", async () => {
    const ns = await namespace({ 'pod-security.kubernetes.io/warn': 'restricted' });
    const pod = await createPod(ns, barePod('bare'));
    assert.equal(pod.status, 201);
    assert.deepEqual(pod.warnings, [`would violate PodSecurity "restricted:latest": ${RESTRICTED_LATEST_BARE('c')}`]);
    for (const w of workloads) {
      const r = await call(s, 'POST', w.path.replace('NS', ns), w.body);
      assert.equal(r.status, 201, `${w.body.kind}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(
        r.warnings,
        [`would violate PodSecurity "restricted:latest": ${RESTRICTED_LATEST_BARE('web')}`],
        String(w.body.kind),
      );
    }
    // updates of the workload warn again; its scale and status subresources do not
    const update = await call(
      s,
      'PATCH',
      `/apis/apps/v1/namespaces/${ns}/deployments/web`,
      { metadata: { labels: { v: '2' } } },
      'application/merge-patch+json',
    );
    assert.equal(update.warnings.length, 1);
    const scale = await call(
      s,
      'PATCH',
      `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`,
      { spec: { replicas: 3 } },
      'application/merge-patch+json',
    );
    assert.equal(scale.status, 200, JSON.stringify(scale.body));
    assert.deepEqual(scale.warnings, []);
  });

  it('warns at the warn level while enforcing a looser one; a refused pod gets the error alone', async () => {
    const ns = await namespace({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/warn': 'restricted',
      'pod-security.kubernetes.io/warn-version': 'v1.30',
    });
    const r = await createPod(ns, barePod('bare'));
    assert.equal(r.status, 201);
    assert.deepEqual(r.warnings, [`would violate PodSecurity "restricted:v1.30": ${RESTRICTED_LATEST_BARE('c')}`]);
    const refused = await createPod(
      ns,
      barePod('priv', { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] }),
    );
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    );
    assert.deepEqual(refused.warnings, []);
  });

  it('unlabelled namespaces are privileged: no warnings, nothing refused', async () => {
    const ns = await namespace({});
    const r = await createPod(ns, barePod('anything', { hostNetwork: true, hostPID: true }));
    assert.equal(r.status, 201);
    assert.deepEqual(r.warnings, []);
  });
});

describe('PodSecurity namespace labels', () => {
  it('refuses invalid labels on create and on update with a 422 naming the label', async () => {
    const created = await call(s, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'psa-bad', labels: { 'pod-security.kubernetes.io/enforce': 'strict' } },
    });
    assert.equal(created.status, 422);
    assert.equal(created.body.reason, 'Invalid');
    assert.equal(
      created.body.message,
      'Namespace "psa-bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    assert.deepEqual(created.body.details.causes, [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "strict": must be one of privileged, baseline, restricted',
        field: 'metadata.labels[pod-security.kubernetes.io/enforce]',
      },
    ]);
    const ns = await namespace({});
    const updated = await label(ns, {
      'pod-security.kubernetes.io/warn-version': 'v2.0',
      'pod-security.kubernetes.io/audit': 'nope',
    });
    assert.equal(updated.status, 422);
    assert.equal(
      updated.body.message,
      `Namespace "${ns}" is invalid: [metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "nope": must be one of privileged, baseline, restricted, ` +
        'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]',
    );
  });

  it('a namespace that already carries an invalid enforce label enforces restricted:latest', async () => {
    const ns = await namespace({});
    // labels written before the plugin checked them (e.g. restored from a data dir)
    const stored = partsOf(s).core.store.get('/namespaces', undefined, ns)!;
    partsOf(s).core.store.commit('/namespaces', 'MODIFIED', {
      ...stored,
      metadata: {
        ...stored.metadata,
        labels: { ...stored.metadata.labels, 'pod-security.kubernetes.io/enforce': 'strict' },
      },
    });
    const r = await createPod(ns, barePod('bare'));
    assert.equal(r.status, 403);
    assert.equal(
      r.body.message,
      `pods "bare" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_LATEST_BARE('c')}`,
    );
    // unrelated updates of that namespace are not blocked by the label it already had
    assert.equal((await label(ns, { team: 'a' })).status, 200);
  });

  it('tightening enforce warns about the existing pods the new level would refuse', async () => {
    const ns = await namespace({});
    for (const name of ['b-bare', 'a-bare']) assert.equal((await createPod(ns, barePod(name))).status, 201);
    assert.equal((await createPod(ns, barePod('host', { hostNetwork: true }))).status, 201);
    assert.equal((await createPod(ns, restrictedPod('fine'))).status, 201);

    const r = await label(ns, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.warnings, [
      `existing pods in namespace "${ns}" violate the new PodSecurity enforce level "restricted:latest"`,
      'a-bare (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    // the pods stay; relaxing, or relabelling without changing enforce, warns about nothing
    assert.deepEqual((await label(ns, { 'pod-security.kubernetes.io/enforce': 'baseline' })).warnings, []);
    assert.deepEqual((await label(ns, { team: 'b' })).warnings, []);
    // pinning an older version is a change of policy: checked again
    const pinned = await label(ns, { 'pod-security.kubernetes.io/enforce-version': 'v1.0' });
    assert.deepEqual(pinned.warnings, [
      `existing pods in namespace "${ns}" violate the new PodSecurity enforce level "baseline:v1.0"`,
      'host: host namespaces',
    ]);
    assert.deepEqual((await label(ns, { 'pod-security.kubernetes.io/enforce': 'privileged' })).warnings, []);
  });
});
