// The pure planner: desired children of a LlamaStackDistribution from its observation (docs/llamastack.md,
// "What the controller creates"). Nothing is planned while the config is unknown or broken or a Secret
// is missing, so the running Deployment stays exactly as it was.

import type { ConfigMap } from '@modelplane/apimachinery/builtin';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseDocument } from 'yaml';
import type { LlamaStackDistribution } from '../../apis/llamastack/index.ts';
import { type PlanApplyOptions, PlanResult } from '../../engine/plan.ts';
import { CA_BUNDLE_KEY } from './ca-bundle.ts';
import { CONFIG_KEY, SCHEMA_VERSIONS, serverConfigError, sha256Hex } from './config/index.ts';
import { CA_BUNDLE_LABEL_VALUE, caBundleConfigMapName, GENERATED_CONFIG_LABEL, objectLabels } from './names.ts';
import {
  buildHpa,
  buildIngress,
  buildNetworkPolicy,
  buildPdb,
  buildPvc,
  buildService,
  buildServiceAccount,
} from './network.ts';
import type { LlamaStackObservation } from './observe.ts';
import { configMapsToDelete, mountedConfigMaps } from './retention.ts';
import { buildDeployment, type WorkloadInput } from './workload.ts';

const value = <T>(r: { ok(): boolean; value?: T }): T | undefined => (r.ok() ? r.value : undefined);

const ownedBy = (o: KubeObject, cr: LlamaStackDistribution) =>
  (o.metadata.ownerReferences ?? []).some((r) => r.uid === cr.metadata.uid);

/** why an override config.yaml cannot be used (read as the server reads it: YAML 1.1, then its schema) */
export function overrideConfigProblem(text: string): string | undefined {
  const doc = parseDocument(text, { version: '1.1', prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) return `is not valid YAML (${doc.errors[0]!.message.split('\n')[0]})`;
  const value = doc.toJS();
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return 'is not a YAML mapping (a Llama Stack config.yaml is one)';
  const schemaError = serverConfigError(value);
  return schemaError ? `is not a config Llama Stack ${SCHEMA_VERSIONS[0]} accepts (${schemaError})` : undefined;
}

export interface ConfigSource {
  source?: WorkloadInput['config'];
  generatedConfigMap?: ConfigMap;
  problem?: string;
  /** the condition reason of `problem`: a missing reference, or a referenced config that cannot be used */
  problemReason?: 'ReferenceNotFound' | 'InvalidOverrideConfig';
}

/** the ConfigMap config.yaml comes from, or why there is none to use yet */
export function configSource(cr: LlamaStackDistribution, obs: LlamaStackObservation): ConfigSource {
  const c = obs.config;
  if (c.kind === 'image-default') return {};
  if (c.kind === 'generated') {
    const cm: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: c.configMap,
        namespace: cr.metadata.namespace,
        labels: { ...objectLabels(cr.metadata.name!), [GENERATED_CONFIG_LABEL]: 'true' },
      },
      immutable: true,
      data: { [CONFIG_KEY]: c.generated.yaml },
    };
    return { source: { configMap: c.configMap, key: CONFIG_KEY, hash: c.generated.hash }, generatedConfigMap: cm };
  }
  if (c.kind === 'override') {
    if (c.namespace !== cr.metadata.namespace)
      return {
        problem: `spec.overrideConfig.configMapNamespace: ${c.namespace} is not the object's namespace ${cr.metadata.namespace}; a pod can only mount ConfigMaps of its own namespace`,
        problemReason: 'InvalidOverrideConfig',
      };
    const cm = obs.fetched.overrideConfig && value<ConfigMap>(obs.fetched.overrideConfig);
    const text = cm?.data?.[CONFIG_KEY];
    if (text === undefined)
      return {
        problem: `spec.overrideConfig: ConfigMap ${c.namespace}/${c.configMap} ${cm ? `has no key "${CONFIG_KEY}"` : 'not found'}`,
        problemReason: 'ReferenceNotFound',
      };
    const broken = overrideConfigProblem(text);
    if (broken)
      return {
        problem: `spec.overrideConfig: "${CONFIG_KEY}" of ConfigMap ${c.namespace}/${c.configMap} ${broken}: fix the ConfigMap; the running Deployment keeps its config until then`,
        problemReason: 'InvalidOverrideConfig',
      };
    return { source: { configMap: c.configMap, key: CONFIG_KEY, hash: sha256Hex(text) } };
  }
  return { problem: c.kind === 'waiting' ? c.message : c.error.message };
}

/** the managed ConfigMap holding the merged CA bundle (mutable: the hash annotation rolls the pods) */
function caBundleConfigMap(cr: LlamaStackDistribution, pem: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: caBundleConfigMapName(cr.metadata.name!),
      namespace: cr.metadata.namespace,
      labels: { ...objectLabels(cr.metadata.name!), [GENERATED_CONFIG_LABEL]: CA_BUNDLE_LABEL_VALUE },
    },
    data: { [CA_BUNDLE_KEY]: pem },
  };
}

function planOptional(
  plan: PlanResult,
  cr: LlamaStackDistribution,
  desired: KubeObject | undefined,
  existing: KubeObject | undefined,
  opts: PlanApplyOptions = {},
): void {
  if (desired) plan.apply(desired, opts);
  else if (existing && ownedBy(existing, cr)) plan.delete(existing);
}

export function planLlamaStack(
  cr: LlamaStackDistribution,
  obs: LlamaStackObservation,
  operatorNamespace: string,
): PlanResult {
  // the one-write rule (docs/llamastack.md): the new ConfigMap is written and read back before the
  // Deployment may mount it, and the first failed write leaves everything after it (the Deployment) alone
  const plan = new PlanResult().stopAtFirstFailure();
  if (!obs.image.ok || obs.secretProblems.length > 0 || (obs.caBundle && !obs.caBundle.ok)) return plan;
  const { source, generatedConfigMap, problem } = configSource(cr, obs);
  if (problem) return plan;
  const f = obs.fetched;
  const existing =
    generatedConfigMap &&
    value<ConfigMap[]>(f.configMaps)?.find((c) => c.metadata.name === generatedConfigMap.metadata.name);
  if (existing && existing.data?.[CONFIG_KEY] !== generatedConfigMap?.data?.[CONFIG_KEY]) {
    throw new Error(
      `ConfigMap ${cr.metadata.namespace}/${existing.metadata.name} exists with a different config.yaml (a hash-prefix collision): delete it so it can be recreated`,
    );
  }
  const crWithSpec = { ...cr, spec: obs.spec };
  const sa = buildServiceAccount(crWithSpec);
  if (sa) plan.apply(sa);
  const pvc = buildPvc(crWithSpec);
  // the volume outlives the object: deleting a LlamaStackDistribution never deletes its data
  if (pvc) plan.applyWithoutOwnerRef(pvc);
  if (generatedConfigMap) plan.apply(generatedConfigMap, { readBack: true });
  const ca = obs.caBundle?.ok ? obs.caBundle : undefined;
  const caBundle = ca ? caBundleConfigMap(cr, ca.pem) : undefined;
  planOptional(plan, cr, caBundle, value(f.caBundleConfigMap), { readBack: true });
  plan.apply(
    buildDeployment({
      cr: crWithSpec,
      image: obs.image.image,
      port: obs.port,
      ...(source ? { config: source } : {}),
      secrets: obs.config.kind === 'generated' ? obs.config.generated.secrets : [],
      ...(obs.secretHash ? { secretHash: obs.secretHash } : {}),
      ...(ca && caBundle
        ? { caBundle: { configMap: caBundle.metadata.name!, hash: sha256Hex(ca.pem).slice(0, 16) } }
        : {}),
    }),
  );
  plan.apply(buildService(crWithSpec, obs.port));
  planOptional(plan, cr, buildPdb(crWithSpec), value(f.pdb));
  planOptional(plan, cr, buildHpa(crWithSpec), value(f.hpa));
  planOptional(plan, cr, buildNetworkPolicy(crWithSpec, obs.port, operatorNamespace), value(f.networkPolicy));
  planOptional(plan, cr, buildIngress(crWithSpec, obs.port), value(f.ingress));
  const generated = (value<ConfigMap[]>(f.configMaps) ?? []).filter((c) => ownedBy(c, cr));
  const mounting = [...(value(f.deployment) ? [value(f.deployment)!] : []), ...(value(f.replicaSets) ?? [])];
  if (f.configMaps.ok() && f.replicaSets.ok() && !f.deployment.hasError()) {
    for (const old of configMapsToDelete(generated, generatedConfigMap?.metadata.name, mountedConfigMaps(mounting)))
      plan.delete(old);
  }
  return plan;
}
