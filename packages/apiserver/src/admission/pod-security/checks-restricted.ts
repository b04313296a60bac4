// The Restricted checks of the Pod Security Standards as k8s.io/pod-security-admission v0.32 runs them.
// Restricted = every Baseline check, minus the ones a Restricted check supersedes (hostPath volumes by
// volume types, Baseline capabilities by Restricted capabilities, Baseline seccomp by Restricted seccomp),
// plus these. From policy v1.25 the Linux-only ones (privilege escalation, capabilities, seccomp) pass
// pods that declare `spec.os.name: windows`.
import {
  CHECK_CAPABILITIES_BASELINE,
  CHECK_HOST_PATH_VOLUMES,
  CHECK_SECCOMP_BASELINE,
  type Check,
  explicitSeccompViolation,
  validSeccompType,
} from './checks-baseline.ts';
import {
  allContainers,
  type CheckFn,
  containerName,
  containersPhrase,
  isWindowsPod,
  joinQuote,
  pluralize,
  sortedUnique,
} from './pod-view.ts';

const allowPrivilegeEscalation: CheckFn = (_meta, spec) => {
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.allowPrivilegeEscalation !== false)
    .map(containerName);
  return bad.length === 0
    ? undefined
    : {
        reason: 'allowPrivilegeEscalation != false',
        detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
      };
};

const capabilitiesRestricted: CheckFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const c of allContainers(spec)) {
    const caps = c.securityContext?.capabilities;
    if (caps == null) {
      missingDropAll.push(containerName(c));
      continue;
    }
    if (!(caps.drop ?? []).includes('ALL')) missingDropAll.push(containerName(c));
    const extra = (caps.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      addingForbidden.push(containerName(c));
      forbidden.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0)
    details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0)
    details.push(
      `${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedUnique(forbidden))} in securityContext.capabilities.add`,
    );
  return details.length === 0 ? undefined : { reason: 'unrestricted capabilities', detail: details.join('; ') };
};

const ALLOWED_VOLUME_SOURCES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
/** the sources v0.32 names in its message, in the order it tests them; any other source is "unknown" */
const NAMED_RESTRICTED_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

const restrictedVolumes: CheckFn = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of spec.volumes ?? []) {
    if (ALLOWED_VOLUME_SOURCES.some((s) => v[s] != null)) continue;
    bad.push(v.name ?? '');
    types.push(NAMED_RESTRICTED_SOURCES.find((s) => v[s] != null) ?? 'unknown');
  }
  if (bad.length === 0) return undefined;
  const unique = sortedUnique(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', unique.length)} ${joinQuote(unique)}`,
  };
};

/**
 * An explicit runAsNonRoot=false on the pod or a container is reported first; otherwise every container
 * that leaves it unset while the pod does not set it to true.
 */
const runAsNonRoot: CheckFn = (_meta, spec) => {
  const pod = spec.securityContext?.runAsNonRoot;
  const setters: string[] = pod === false ? ['pod'] : [];
  const explicitlyBad = allContainers(spec)
    .filter((c) => c.securityContext?.runAsNonRoot === false)
    .map(containerName);
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  if (setters.length > 0)
    return {
      reason: 'runAsNonRoot != true',
      detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`,
    };
  if (pod === true) return undefined;
  const unset = allContainers(spec)
    .filter((c) => c.securityContext?.runAsNonRoot == null)
    .map(containerName);
  return unset.length === 0
    ? undefined
    : {
        reason: 'runAsNonRoot != true',
        detail: `pod or ${containersPhrase(unset)} must set securityContext.runAsNonRoot=true`,
      };
};

const runAsUser: CheckFn = (_meta, spec) => {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.runAsUser === 0)
    .map(containerName);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0
    ? undefined
    : { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` };
};

/** Like Baseline seccomp, and a container without a profile of its own needs a valid pod-level one. */
const seccompProfileRestricted: CheckFn = (_meta, spec) => {
  const explicit = explicitSeccompViolation(spec);
  if (explicit) return explicit;
  if (validSeccompType(spec.securityContext?.seccompProfile?.type)) return undefined;
  const unset = allContainers(spec)
    .filter((c) => c.securityContext?.seccompProfile == null)
    .map(containerName);
  if (unset.length === 0) return undefined;
  return {
    reason: 'seccompProfile',
    detail: `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
  };
};

/** the v1.25 revision of a Linux-only check */
const linuxOnly =
  (check: CheckFn): CheckFn =>
  (meta, spec) =>
    isWindowsPod(spec) ? undefined : check(meta, spec);

export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minor: 8, check: allowPrivilegeEscalation },
      { minor: 25, check: linuxOnly(allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minor: 22, check: capabilitiesRestricted, overrides: [CHECK_CAPABILITIES_BASELINE] },
      { minor: 25, check: linuxOnly(capabilitiesRestricted), overrides: [CHECK_CAPABILITIES_BASELINE] },
    ],
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    versions: [{ minor: 0, check: restrictedVolumes, overrides: [CHECK_HOST_PATH_VOLUMES] }],
  },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minor: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minor: 23, check: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minor: 19, check: seccompProfileRestricted, overrides: [CHECK_SECCOMP_BASELINE] },
      { minor: 25, check: linuxOnly(seccompProfileRestricted), overrides: [CHECK_SECCOMP_BASELINE] },
    ],
  },
];
