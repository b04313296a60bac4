// The core's ModelDeployment validation: docs/kubeairunway.md's validation table (exact messages), override safety,
// and the upstream webhook's bounds where docs/kubeairunway.md is silent. Pure and cheap: the validating webhook calls it
// on every admission, and the core controller calls it at reconcile time when the webhook was bypassed.

import { parseQuantity, type Quantity } from '@modelplane/apimachinery/quantity';
import type {
  InferenceProviderConfig,
  ModelDeployment,
  ModelDeploymentSpec,
} from '../../../apis/kubeairunway/index.ts';
import { validateChildNames } from './child-names.ts';
import { modelSourceOf, servingModeOf } from './defaults.ts';
import { identityChanges, identityChangeWarning } from './identity.ts';
import * as m from './messages.ts';
import { validateProviderOverrides } from './overrides.ts';
import { validateStorage } from './storage.ts';
import type { ValidationIssue, ValidationResult } from './types.ts';

export interface ValidationContext {
  /** the registered InferenceProviderConfigs; when given, an explicitly named provider must be among them */
  providers?: ReadonlyArray<
    Pick<InferenceProviderConfig, 'metadata' | 'spec'> & Partial<Pick<InferenceProviderConfig, 'status'>>
  >;
  /** whether the upstream CRD of `provider` is served; asked only for providers that require a CRD */
  providerCrdInstalled?: (provider: string) => boolean;
}

const MAX_CPU = parseQuantity(m.MAX_CPU);
const MAX_MEMORY = parseQuantity(m.MAX_MEMORY);
const ARG_KEY = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/**
 * Validates `md` (after defaulting). With `old` it is an update: create-only rules are skipped and identity
 * field changes produce warnings (they are allowed: the provider resource is recreated).
 */
export function validateModelDeployment(
  md: Pick<ModelDeployment, 'metadata' | 'spec' | 'status'>,
  old?: Pick<ModelDeployment, 'spec' | 'status'>,
  ctx: ValidationContext = {},
): ValidationResult {
  const errors: ValidationIssue[] = [];
  const warnings: string[] = [];
  const err = (field: string, message: string) => errors.push({ field, message });
  const spec: ModelDeploymentSpec = md.spec ?? { model: {} };

  if (!old && md.metadata?.name?.includes('.')) err('metadata.name', m.NAME_WITH_DOTS);
  if (!old) errors.push(...validateChildNames(md.metadata?.name, spec));

  const source = modelSourceOf(spec);
  if (source === 'huggingface' && !spec.model?.id) err('spec.model.id', m.MODEL_ID_REQUIRED);
  if (source === 'custom' && spec.model?.servedName) warnings.push(m.WARN_SERVED_NAME_CUSTOM);

  const engine = spec.engine?.type;
  if (!engine) err('spec.engine.type', m.ENGINE_TYPE_REQUIRED);

  const mode = servingModeOf(spec);
  if (mode === 'aggregated') {
    const gpuMessage = engine && m.ENGINE_REQUIRES_GPU[engine];
    if (gpuMessage && (spec.resources?.gpu?.count ?? 0) === 0) err('spec.resources.gpu.count', gpuMessage);
  } else {
    validateDisaggregated(spec, err);
  }

  validateProviderName(spec.provider?.name, ctx, err);
  validateZeroReplicas(spec, spec.provider?.name || md.status?.provider?.name || old?.status?.provider?.name, ctx, err);
  const overrides = validateProviderOverrides(spec.provider?.name || undefined, spec.provider?.overrides);
  errors.push(...overrides.errors);
  warnings.push(...overrides.warnings);

  validateBounds(spec, err);
  validateEngineFields(spec, err, warnings);

  const token = spec.secrets?.huggingFaceToken;
  if (token !== undefined && (token.length > 253 || !DNS_SUBDOMAIN.test(token)))
    err('spec.secrets.huggingFaceToken', m.invalidSecretName(token));
  const storage = validateStorage(md, old);
  errors.push(...storage.errors);
  warnings.push(...storage.warnings);
  validateLabels('spec.podTemplate.metadata.labels', spec.podTemplate?.metadata?.labels, err);
  validateLabels('spec.nodeSelector', spec.nodeSelector, err);

  if (old) for (const change of identityChanges(old, md)) warnings.push(identityChangeWarning(change));
  return { errors, warnings };
}

function validateDisaggregated(spec: ModelDeploymentSpec, err: (field: string, message: string) => void): void {
  if (spec.resources?.gpu !== undefined) err('spec.resources.gpu', m.DISAGGREGATED_GPU_CONFLICT);
  const { prefill, decode } = spec.scaling ?? {};
  if (!prefill || !decode) err('spec.scaling', m.DISAGGREGATED_REQUIRES_SCALING);
  if (prefill && !((prefill.gpu?.count ?? 0) > 0))
    err('spec.scaling.prefill.gpu.count', m.DISAGGREGATED_REQUIRES_PREFILL_GPU);
  if (decode && !((decode.gpu?.count ?? 0) > 0))
    err('spec.scaling.decode.gpu.count', m.DISAGGREGATED_REQUIRES_DECODE_GPU);
}

/**
 * scaling.replicas: 0 on a provider that cannot run no pod at all (its InferenceProviderConfig does not say
 * capabilities.zeroReplicas): refused, instead of silently running one (docs/kubeairunway.md, "Replicas")
 */
function validateZeroReplicas(
  spec: ModelDeploymentSpec,
  provider: string | undefined,
  ctx: ValidationContext,
  err: (field: string, message: string) => void,
): void {
  if (!provider || spec.scaling?.replicas !== 0 || servingModeOf(spec) === 'disaggregated' || !ctx.providers) return;
  const config = ctx.providers.find((p) => p.metadata.name === provider);
  if (!config || config.spec?.capabilities?.zeroReplicas === true) return;
  err('spec.scaling.replicas', m.zeroReplicasUnsupported(provider, ctx.providers));
}

function validateProviderName(
  name: string | undefined,
  ctx: ValidationContext,
  err: (field: string, message: string) => void,
): void {
  if (!name || !ctx.providers) return;
  const config = ctx.providers.find((p) => p.metadata.name === name);
  if (!config) {
    err(
      'spec.provider.name',
      m.providerNotRegistered(
        name,
        ctx.providers.map((p) => p.metadata.name ?? ''),
      ),
    );
    return;
  }
  const needsCrd = config.spec?.capabilities?.requiresCRD !== false;
  if (needsCrd && ctx.providerCrdInstalled && !ctx.providerCrdInstalled(name))
    err('spec.provider.name', m.providerCrdNotInstalled(name, config.status));
}

function quantityOf(
  field: string,
  value: string | number | undefined,
  err: (field: string, message: string) => void,
): Quantity | undefined {
  if (value === undefined) return undefined;
  try {
    const q = parseQuantity(String(value));
    if (q.sign() < 0) throw new RangeError('negative');
    return q;
  } catch {
    err(field, m.invalidQuantity(field, value));
    return undefined;
  }
}

function validateBounds(spec: ModelDeploymentSpec, err: (field: string, message: string) => void): void {
  const maxInt = (field: string, value: number | undefined, max: number) => {
    if (value !== undefined && value > max) err(field, m.exceedsMaximum(field, value, max));
  };
  const maxQuantity = (field: string, value: string | number | undefined, max: Quantity, maxText: string) => {
    const q = quantityOf(field, value, err);
    if (q && q.cmp(max) > 0) err(field, m.exceedsMaximum(field, value!, maxText));
  };
  maxInt('spec.resources.gpu.count', spec.resources?.gpu?.count, m.MAX_GPU_COUNT);
  maxQuantity('spec.resources.cpu', spec.resources?.cpu, MAX_CPU, m.MAX_CPU);
  maxQuantity('spec.resources.memory', spec.resources?.memory, MAX_MEMORY, m.MAX_MEMORY);
  maxInt('spec.scaling.replicas', spec.scaling?.replicas, m.MAX_REPLICAS);
  for (const role of ['prefill', 'decode'] as const) {
    const c = spec.scaling?.[role];
    if (!c) continue;
    maxInt(`spec.scaling.${role}.replicas`, c.replicas, m.MAX_REPLICAS);
    maxInt(`spec.scaling.${role}.gpu.count`, c.gpu?.count, m.MAX_GPU_COUNT);
    maxQuantity(`spec.scaling.${role}.memory`, c.memory, MAX_MEMORY, m.MAX_MEMORY);
  }
}

function validateEngineFields(
  spec: ModelDeploymentSpec,
  err: (field: string, message: string) => void,
  warnings: string[],
): void {
  const engine = spec.engine;
  if (!engine) return;
  if (engine.image && spec.image && engine.image !== spec.image) err('spec.engine.image', m.IMAGE_CONFLICT);
  const extraFlags = new Set((engine.extraArgs ?? []).map((a) => a.replace(/^-+/, '').split('=')[0]));
  for (const key of Object.keys(engine.args ?? {})) {
    if (!ARG_KEY.test(key)) err(`spec.engine.args.${key}`, m.invalidArgKey(key));
    else if (extraFlags.has(key)) err(`spec.engine.args.${key}`, m.argInBothPlaces(key));
  }
  if (engine.trustRemoteCode === true) warnings.push(m.WARN_TRUST_REMOTE_CODE);
  if (engine.type === 'trtllm' && engine.contextLength !== undefined) warnings.push(m.WARN_CONTEXT_LENGTH_TRTLLM);
  warnUnservedGatewayName(spec, warnings);
}

/**
 * The Gateway routes by spec.gateway.modelName and forwards the body as it came; vLLM, SGLang and TensorRT-LLM
 * answer only the name they serve (llama.cpp answers any), so a routed name they do not serve is answered 404
 */
function warnUnservedGatewayName(spec: ModelDeploymentSpec, warnings: string[]): void {
  const routed = spec.gateway?.modelName;
  const engine = spec.engine?.type;
  if (!routed || spec.gateway?.enabled === false || modelSourceOf(spec) === 'custom') return;
  if (engine !== 'vllm' && engine !== 'sglang' && engine !== 'trtllm') return;
  const served = spec.model?.servedName || spec.model?.id;
  if (served && served !== routed) warnings.push(m.gatewayModelNameNotServed(routed, served));
}

function validateLabels(
  field: string,
  labels: Record<string, string> | undefined,
  err: (field: string, message: string) => void,
): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    const slash = key.lastIndexOf('/');
    const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
    const name = slash >= 0 ? key.slice(slash + 1) : key;
    const keyOk =
      name.length <= 63 &&
      LABEL_NAME.test(name) &&
      (prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix)));
    if (!keyOk) err(`${field}`, `${field}: invalid label key ${JSON.stringify(key)}`);
    else if (value.length > 63 || (value !== '' && !LABEL_NAME.test(value)))
      err(
        `${field}.${key}`,
        `${field}.${key}: invalid label value ${JSON.stringify(value)} (at most 63 letters, digits, "-", "_" or ".", starting and ending alphanumeric)`,
      );
  }
}

/** The text a webhook denies with: the messages in order, joined by "; " (one error prints exactly as is). */
export function admissionMessage(errors: ReadonlyArray<ValidationIssue>): string {
  return errors.map((e) => e.message).join('; ');
}
