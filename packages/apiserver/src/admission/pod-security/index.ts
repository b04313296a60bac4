// The PodSecurity admission plugin: Pod Security Standards levels enforced, warned about and audited per
// namespace through the pod-security.kubernetes.io labels.
export { type PodSecurityAttributes, type PodSecurityConfig, podSecurityAdmission } from './admission.ts';
export { evaluatePod, forbiddenDetail, forbiddenReason, MAX_POLICY_MINOR } from './evaluator.ts';
export { type LevelVersion, levelVersionString, type NamespacePolicy, policyFromLabels } from './levels.ts';
