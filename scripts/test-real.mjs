// `npm run test:real`: the integration and e2e suites against a real etcd + kube-apiserver +
// kube-controller-manager (docs/real-kubernetes.md). Builds the binaries first when absent
// (tools/kube/build.sh), runs the suites with MODELPLANE_TEST_BACKEND=real, then checks that no
// control-plane process outlived its test. `node scripts/test-real.mjs FILE…` runs just those files.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

// Every suite that talks to an API server through the backend switch (`testBackend()` of @modelplane/apiserver/testing).
const REAL_SUITES = [
  'test/real/control-plane.test.ts',
  'test/real/fidelity.test.ts',
  'test/e2e/kubectl-races-dev.test.ts',
  'packages/runtime/test/predicates-property.integration.test.ts',
  'test/controllers/aim-process-rbac.integration.test.ts',
  'test/controllers/llmd/autoscaler-process-rbac.integration.test.ts',
  'test/security/rbac-review.integration.test.ts',
  'test/cli/dashboard/signin.integration.test.ts',
  'test/controllers/aim/service-controller.integration.test.ts',
  'test/controllers/aim/runtime-config-integration.integration.test.ts',
  'test/controllers/aim/model-integration.integration.test.ts',
  'test/controllers/kubeairunway/providers-simulated.integration.test.ts',
  'test/controllers/kubeairunway/provider-kaito-integration.integration.test.ts',
  'test/e2e/kubeairunway-webhook.test.ts',
  'test/e2e/kubeairunway-processes.test.ts',
  'test/webhooks/llamastack-api.integration.test.ts',
  'test/controllers/llamastack/controller.integration.test.ts',
  'test/e2e/llamastack-dev.test.ts',
  'test/e2e/aim-chain.test.ts',
  'test/e2e/pod-logs.test.ts',
  'test/controllers/kubeairunway/core-controller.integration.test.ts',
  'test/controllers/kubeairunway/provider-lifecycle-integration.integration.test.ts',
  'test/apis/aim-crds.integration.test.ts',
  'test/apis/kubeairunway-crds.integration.test.ts',
  'test/apis/llmd-crds.integration.test.ts',
  'packages/sim/test/operators-crds.integration.test.ts',
  'test/e2e/fault-injection.test.ts',
  'test/e2e/reliability-aim.test.ts',
  'test/e2e/reliability-kubeairunway.test.ts',
  'test/deploy/helm.integration.test.ts',
  'test/deploy/helm-install.integration.test.ts',
  'test/apis/crd-gen.integration.test.ts',
  'test/controllers/kubeairunway/provider-set-cli.integration.test.ts',
  'test/sim/operators-dynamo.integration.test.ts',
  'test/sim/operators-gateway.integration.test.ts',
  'test/sim/operators-kaito.integration.test.ts',
  'test/sim/operators-keda.integration.test.ts',
  'test/sim/operators-kserve.integration.test.ts',
  'test/sim/operators-kuberay.integration.test.ts',
  'test/cli/dashboard/server.integration.test.ts',
  'test/cli/status-dashboard-cli.integration.test.ts',
  'test/e2e/aim-acceptance-catalog.test.ts',
  'test/e2e/aim-acceptance-service.test.ts',
  'test/e2e/aim-model-source.test.ts',
  'test/e2e/kubeairunway-gateway-dev.test.ts',
  'test/e2e/kubeairunway-gateway-routing.test.ts',
  'test/e2e/kubeairunway-name-claims.test.ts',
  'test/e2e/llamastack-quickstart-dev.test.ts',
  'packages/runtime/test/runtime.integration.test.ts',
  'packages/runtime/test/leader.integration.test.ts',
  'test/controllers/llmd/discovery.integration.test.ts',
  'test/engine/sample-controller.integration.test.ts',
  'packages/runtime/test/faults.integration.test.ts',
  'test/real/keda-autoscaling.test.ts',
];
// the suites that need more than the control plane: a real KEDA (tools/keda/build.sh) and Prometheus
const KEDA_SUITES = new Set(['test/real/keda-autoscaling.test.ts']);

const started = Date.now();
const build = spawnSync('bash', ['tools/kube/build.sh'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error('test:real: building the real control plane failed (see above)');
  process.exit(build.status ?? 1);
}
spawnSync(process.execPath, ['scripts/extract-kubectl.mjs'], { stdio: 'inherit' });

const files = process.argv.length > 2 ? process.argv.slice(2) : REAL_SUITES;
// marks this run's processes: the leftover check below looks only at them, never at other runs on the machine
const RUN_MARK = `MODELPLANE_TEST_REAL_RUN=${randomUUID()}`;
const env = {
  ...process.env,
  MODELPLANE_TEST_REAL_RUN: RUN_MARK.split('=')[1],
  MODELPLANE_TEST_BACKEND: 'real',
  MODELPLANE_LOG_LEVEL: process.env.MODELPLANE_LOG_LEVEL ?? 'silent',
};
const run = (list) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...list], {
    stdio: 'inherit',
    env,
  }).status ?? 1;
// the suites that need only the control plane first: on a cold machine KEDA's build (started in the
// background by .ci/run) goes on meanwhile, and only the KEDA suites wait for it
const plain = files.filter((f) => !KEDA_SUITES.has(f));
const keda = files.filter((f) => KEDA_SUITES.has(f));
let status = plain.length > 0 ? run(plain) : 0;
if (keda.length > 0) {
  for (const [what, script] of [
    ['KEDA', 'tools/keda/build.sh'],
    ['Prometheus', 'scripts/setup-prometheus.sh'],
  ]) {
    const r = spawnSync('bash', [script], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`test:real: setting up ${what} failed (see above)`);
      process.exit(r.status ?? 1);
    }
  }
  const k = run(keda);
  if (status === 0) status = k;
}
/** this run's control-plane processes still running (there should be none); other runs' are not ours to judge */
function leftovers() {
  const found = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (
        /(^|\/)(etcd|kube-apiserver|kube-controller-manager|keda-operator|keda-metrics-apiserver)$/.test(
          cmd[0] ?? '',
        ) &&
        cmd.some((a) => a.includes('modelplane-real-')) &&
        readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(RUN_MARK)
      )
        found.push({ pid: Number(pid), cmd: cmd[0] });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}
const left = leftovers();
for (const p of left) {
  console.error(`test:real: ${p.cmd} (pid ${p.pid}) outlived its test; killing it`);
  process.kill(p.pid, 'SIGKILL');
}
console.log(
  `test:real: ${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s (build included), exit ${status}`,
);
process.exit(left.length > 0 ? 1 : status);
