// The Pod Security Standards checks as pure functions: for every Baseline and Restricted check a pod that
// breaks only that check (with the exact message k8s.io/pod-security-admission v0.32 gives) and one that
// passes, the version boundaries of the revised checks, the order violations are listed in, and how
// namespace labels resolve to a policy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  evaluatePod,
  forbiddenDetail,
  forbiddenReason,
  MAX_POLICY_MINOR,
  policyFromLabels,
} from '../../src/admission/pod-security/index.ts';
import type { LevelVersion } from '../../src/admission/pod-security/levels.ts';

type Obj = Record<string, any>;

const latest = (level: LevelVersion['level']): LevelVersion => ({ level, version: { latest: true } });
const at = (level: LevelVersion['level'], minor: number): LevelVersion => ({
  level,
  version: { latest: false, minor },
});

/** the message the policy gives for the pod, '' when it passes */
function detail(lv: LevelVersion, spec: Obj, annotations: Record<string, string> = {}): string {
  return forbiddenDetail(evaluatePod(lv, { annotations }, spec));
}

/** one container named c, merged with `c` */
const container = (c: Obj = {}): Obj => ({ name: 'c', image: 'nginx', ...c });

/** a pod that meets the restricted profile; each restricted case breaks one thing */
function restrictedPod(patch: (spec: Obj) => void = () => {}): Obj {
  const spec: Obj = {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [container({ securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } })],
  };
  patch(spec);
  return spec;
}

describe('PodSecurity baseline checks', () => {
  const baseline = latest('baseline');
  const cases: Array<{ check: string; bad: Obj; annotations?: Record<string, string>; message: string; good: Obj }> = [
    {
      check: 'appArmorProfile (field)',
      bad: { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [container()] },
      message: 'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")',
      good: {
        securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
        containers: [container({ securityContext: { appArmorProfile: { type: 'Localhost' } } })],
      },
    },
    {
      check: 'appArmorProfile (annotation)',
      bad: { containers: [container()] },
      annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' },
      message:
        'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined"")',
      good: { containers: [container()] },
    },
    {
      check: 'capabilities_baseline',
      bad: {
        containers: [container({ securityContext: { capabilities: { add: ['NET_RAW', 'CHOWN', 'SYS_ADMIN'] } } })],
      },
      message:
        'non-default capabilities (container "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
      good: { containers: [container({ securityContext: { capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE'] } } })] },
    },
    {
      check: 'hostNamespaces',
      bad: { hostPID: true, hostNetwork: true, containers: [container()] },
      message: 'host namespaces (hostNetwork, hostPID)',
      good: { hostPID: false, hostNetwork: false, hostIPC: false, containers: [container()] },
    },
    {
      check: 'hostPathVolumes',
      bad: {
        volumes: [
          { name: 'h', hostPath: { path: '/' } },
          { name: 'e', emptyDir: {} },
        ],
        containers: [container()],
      },
      message: 'hostPath volumes (volume "h")',
      good: { volumes: [{ name: 'e', emptyDir: {} }], containers: [container()] },
    },
    {
      check: 'hostPorts',
      bad: {
        containers: [
          container({ name: 'a', ports: [{ containerPort: 80, hostPort: 9090 }] }),
          container({ name: 'b', ports: [{ containerPort: 81, hostPort: 10000 }] }),
        ],
      },
      message: 'hostPort (containers "a", "b" use hostPorts 10000, 9090)',
      good: { containers: [container({ ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }] })] },
    },
    {
      check: 'privileged',
      bad: {
        initContainers: [container({ name: 'init', securityContext: { privileged: true } })],
        containers: [container()],
      },
      message: 'privileged (container "init" must not set securityContext.privileged=true)',
      good: { containers: [container({ securityContext: { privileged: false } })] },
    },
    {
      check: 'procMount',
      bad: { containers: [container({ securityContext: { procMount: 'Unmasked' } })] },
      message: 'procMount (container "c" must not set securityContext.procMount to "Unmasked")',
      good: { containers: [container({ securityContext: { procMount: 'Default' } })] },
    },
    {
      check: 'seLinuxOptions',
      bad: {
        securityContext: { seLinuxOptions: { type: 'spc_t', user: 'root' } },
        containers: [container({ securityContext: { seLinuxOptions: { role: 'sysadm_r' } } })],
      },
      message:
        'seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
      good: {
        securityContext: { seLinuxOptions: { type: 'container_t', level: 's0:c1' } },
        containers: [container({ securityContext: { seLinuxOptions: { type: 'container_engine_t' } } })],
      },
    },
    {
      check: 'seccompProfile_baseline',
      bad: {
        securityContext: { seccompProfile: { type: 'Unconfined' } },
        containers: [container({ securityContext: { seccompProfile: { type: 'Unconfined' } } })],
      },
      message:
        'seccompProfile (pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
      good: {
        securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } },
        containers: [container()],
      },
    },
    {
      check: 'sysctls',
      bad: {
        securityContext: {
          sysctls: [
            { name: 'kernel.msgmax', value: '1' },
            { name: 'net.ipv4.tcp_rmem', value: '4096 87380 16777216' },
            { name: 'vm.swappiness', value: '1' },
          ],
        },
        containers: [container()],
      },
      message: 'forbidden sysctls (kernel.msgmax, vm.swappiness)',
      good: {
        securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65000' }] },
        containers: [container()],
      },
    },
    {
      check: 'windowsHostProcess',
      bad: {
        securityContext: { windowsOptions: { hostProcess: true } },
        containers: [container({ securityContext: { windowsOptions: { hostProcess: true } } })],
      },
      message: 'hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)',
      good: { securityContext: { windowsOptions: { hostProcess: false } }, containers: [container()] },
    },
  ];
  for (const c of cases) {
    it(`${c.check}: refuses the violating pod with kube's message, passes the compliant one`, () => {
      assert.equal(detail(baseline, c.bad, c.annotations), c.message);
      assert.equal(detail(baseline, c.good), '');
      assert.equal(detail(latest('privileged'), c.bad, c.annotations), '', 'privileged checks nothing');
    });
  }

  it('revisions by policy version: sysctls (1.27, 1.29, 1.32), SELinux container_engine_t (1.31), seccomp annotations before 1.19', () => {
    const sysctl = (name: string) => ({
      securityContext: { sysctls: [{ name, value: '1' }] },
      containers: [container()],
    });
    assert.equal(detail(at('baseline', 31), sysctl('net.ipv4.tcp_wmem')), 'forbidden sysctls (net.ipv4.tcp_wmem)');
    assert.equal(detail(at('baseline', 32), sysctl('net.ipv4.tcp_wmem')), '');
    assert.equal(
      detail(at('baseline', 28), sysctl('net.ipv4.tcp_keepalive_time')),
      'forbidden sysctls (net.ipv4.tcp_keepalive_time)',
    );
    assert.equal(detail(at('baseline', 29), sysctl('net.ipv4.tcp_keepalive_time')), '');
    assert.equal(
      detail(at('baseline', 26), sysctl('net.ipv4.ip_local_reserved_ports')),
      'forbidden sysctls (net.ipv4.ip_local_reserved_ports)',
    );
    assert.equal(detail(at('baseline', 27), sysctl('net.ipv4.ip_local_reserved_ports')), '');
    const engine = { securityContext: { seLinuxOptions: { type: 'container_engine_t' } }, containers: [container()] };
    assert.equal(
      detail(at('baseline', 30), engine),
      'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "container_engine_t")',
    );
    assert.equal(detail(at('baseline', 31), engine), '');
    const unconfinedAnnotation = {
      'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
      'container.seccomp.security.alpha.kubernetes.io/c': 'localhost/p',
    };
    assert.equal(
      detail(at('baseline', 18), { containers: [container()] }, unconfinedAnnotation),
      'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")',
    );
    assert.equal(
      detail(at('baseline', 19), { containers: [container()] }, unconfinedAnnotation),
      '',
      'from 1.19 the field is checked, not the annotation',
    );
    assert.equal(
      detail(at('baseline', 18), {
        securityContext: { seccompProfile: { type: 'Unconfined' } },
        containers: [container()],
      }),
      '',
    );
  });

  it('versions newer than the newest revision, and latest, evaluate as the newest (v1.32)', () => {
    assert.equal(MAX_POLICY_MINOR, 32);
    const wmem = {
      securityContext: { sysctls: [{ name: 'net.ipv4.tcp_wmem', value: '1' }] },
      containers: [container()],
    };
    assert.equal(detail(at('baseline', 99), wmem), '');
  });
});

describe('PodSecurity restricted checks', () => {
  const restricted = latest('restricted');
  it('a pod meeting the profile passes', () => {
    assert.equal(detail(restricted, restrictedPod()), '');
  });

  const cases: Array<{ check: string; bad: (s: Obj) => void; message: string; good: (s: Obj) => void }> = [
    {
      check: 'allowPrivilegeEscalation',
      bad: (s) => s.containers.push(container({ name: 'd', securityContext: { capabilities: { drop: ['ALL'] } } })),
      message:
        'allowPrivilegeEscalation != false (container "d" must set securityContext.allowPrivilegeEscalation=false)',
      good: (s) =>
        s.containers.push(
          container({
            name: 'd',
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          }),
        ),
    },
    {
      check: 'capabilities_restricted',
      bad: (s) => {
        s.containers[0].securityContext.capabilities = { add: ['SYS_ADMIN', 'CHOWN', 'NET_BIND_SERVICE'] };
      },
      // the Baseline capabilities check is superseded: SYS_ADMIN is reported once
      message:
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "CHOWN", "SYS_ADMIN" in securityContext.capabilities.add)',
      good: (s) => {
        s.containers[0].securityContext.capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] };
      },
    },
    {
      check: 'restrictedVolumes',
      bad: (s) => {
        s.volumes = [
          { name: 'h', hostPath: { path: '/' } },
          { name: 'n', nfs: { server: 'x', path: '/' } },
          { name: 'i', image: { reference: 'x' } },
          { name: 'ok', projected: { sources: [] } },
        ];
      },
      // hostPath is reported by the volume-type check alone, and v1.32 does not know image volumes
      message:
        'restricted volume types (volumes "h", "n", "i" use restricted volume types "hostPath", "nfs", "unknown")',
      good: (s) => {
        s.volumes = [
          'configMap',
          'csi',
          'downwardAPI',
          'emptyDir',
          'ephemeral',
          'persistentVolumeClaim',
          'projected',
          'secret',
        ].map((t) => ({ name: t.toLowerCase(), [t]: {} }));
      },
    },
    {
      check: 'runAsNonRoot (unset)',
      bad: (s) => delete s.securityContext.runAsNonRoot,
      message: 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
      good: (s) => {
        delete s.securityContext.runAsNonRoot;
        s.containers[0].securityContext.runAsNonRoot = true;
      },
    },
    {
      check: 'runAsNonRoot (explicit false)',
      bad: (s) => {
        s.containers[0].securityContext.runAsNonRoot = false;
      },
      message: 'runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false)',
      good: (s) => {
        s.containers[0].securityContext.runAsNonRoot = true;
      },
    },
    {
      check: 'runAsUser',
      bad: (s) => {
        s.securityContext.runAsUser = 0;
        s.containers[0].securityContext.runAsUser = 0;
      },
      message: 'runAsUser=0 (pod and container "c" must not set runAsUser=0)',
      good: (s) => {
        s.securityContext.runAsUser = 1000;
      },
    },
    {
      check: 'seccompProfile_restricted (unset)',
      bad: (s) => delete s.securityContext.seccompProfile,
      message:
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
      good: (s) => {
        delete s.securityContext.seccompProfile;
        s.containers[0].securityContext.seccompProfile = { type: 'RuntimeDefault' };
      },
    },
    {
      check: 'seccompProfile_restricted (Unconfined)',
      bad: (s) => {
        s.containers[0].securityContext.seccompProfile = { type: 'Unconfined' };
      },
      // the Baseline seccomp check is superseded: reported once
      message: 'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
      good: (s) => {
        s.containers[0].securityContext.seccompProfile = { type: 'Localhost', localhostProfile: 'p.json' };
      },
    },
  ];
  for (const c of cases) {
    it(`${c.check}: refuses the violating pod with kube's message, passes the compliant one`, () => {
      assert.equal(detail(restricted, restrictedPod(c.bad)), c.message);
      assert.equal(detail(restricted, restrictedPod(c.good)), '');
    });
  }

  it('a bare pod gets the message real clusters give, checks in kube order', () => {
    const spec = { containers: [container()] };
    assert.equal(
      detail(restricted, spec),
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    assert.equal(
      forbiddenReason(evaluatePod(restricted, {}, spec)),
      'allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    );
    // Baseline checks come before Restricted ones
    assert.match(
      detail(restricted, { hostNetwork: true, containers: [container()] }),
      /^host namespaces \(hostNetwork\), allowPrivilegeEscalation != false/,
    );
  });

  it('revisions by policy version: seccomp from 1.19, capabilities from 1.22, runAsUser from 1.23, the Windows exemption from 1.25', () => {
    const bare = {
      containers: [container({ securityContext: { allowPrivilegeEscalation: false } })],
      securityContext: { runAsNonRoot: true },
    };
    assert.equal(detail(at('restricted', 18), bare), '');
    assert.match(detail(at('restricted', 19), bare), /^seccompProfile \(pod or container "c"/);
    assert.doesNotMatch(detail(at('restricted', 21), bare), /capabilities/);
    assert.match(detail(at('restricted', 22), bare), /unrestricted capabilities/);
    // before 1.22 Baseline capabilities still apply under Restricted
    const netRaw = restrictedPod((s) => (s.containers[0].securityContext.capabilities = { add: ['NET_RAW'] }));
    assert.equal(
      detail(at('restricted', 21), netRaw),
      'non-default capabilities (container "c" must not include "NET_RAW" in securityContext.capabilities.add)',
    );
    const root = restrictedPod((s) => (s.securityContext.runAsUser = 0));
    assert.equal(detail(at('restricted', 22), root), '');
    assert.equal(detail(at('restricted', 23), root), 'runAsUser=0 (pod must not set runAsUser=0)');
    const windows = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [container()] };
    assert.equal(detail(at('restricted', 25), windows), '');
    assert.equal(
      detail(at('restricted', 24), windows),
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    assert.equal(
      detail(at('restricted', 7), { containers: [container()], securityContext: { runAsNonRoot: true } }),
      '',
      'allowPrivilegeEscalation from 1.8',
    );
  });

  it('checks init and ephemeral containers too, naming them in visiting order', () => {
    const spec = restrictedPod((s) => {
      s.initContainers = [container({ name: 'init' })];
      s.ephemeralContainers = [
        container({
          name: 'debug',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        }),
      ];
    });
    assert.equal(
      detail(restricted, spec),
      'allowPrivilegeEscalation != false (container "init" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "init" must set securityContext.capabilities.drop=["ALL"])',
    );
  });
});

describe('PodSecurity namespace labels', () => {
  it('unlabelled namespaces are privileged:latest in all three modes', () => {
    const { policy, errors } = policyFromLabels({ 'kubernetes.io/metadata.name': 'x' });
    assert.deepEqual(errors, []);
    for (const mode of ['enforce', 'audit', 'warn'] as const)
      assert.deepEqual(policy[mode], { level: 'privileged', version: { latest: true } });
  });

  it('levels and pinned versions are read per mode; a level without a version means latest', () => {
    const { policy, errors } = policyFromLabels({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/enforce-version': 'v1.24',
      'pod-security.kubernetes.io/warn': 'restricted',
      'pod-security.kubernetes.io/audit-version': 'v1.0',
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(policy.enforce, { level: 'baseline', version: { latest: false, minor: 24 } });
    assert.deepEqual(policy.warn, { level: 'restricted', version: { latest: true } });
    assert.deepEqual(policy.audit, { level: 'privileged', version: { latest: false, minor: 0 } });
  });

  it('an invalid enforce level is enforced as restricted, invalid audit/warn levels fail open, invalid versions mean latest', () => {
    const { policy, errors } = policyFromLabels({
      'pod-security.kubernetes.io/enforce': 'strict',
      'pod-security.kubernetes.io/audit': 'Restricted',
      'pod-security.kubernetes.io/warn-version': 'v1.05',
      'pod-security.kubernetes.io/enforce-version': '1.25',
    });
    assert.deepEqual(policy.enforce, { level: 'restricted', version: { latest: true } });
    assert.equal(policy.audit.level, 'privileged');
    assert.deepEqual(policy.warn.version, { latest: true });
    assert.deepEqual(
      errors.map((e) => `${e.field}: ${e.message}`),
      [
        'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "1.25": must be "latest" or "v1.x"',
        'metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "Restricted": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v1.05": must be "latest" or "v1.x"',
      ],
    );
  });
});
