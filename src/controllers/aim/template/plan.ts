// The template planner, health and status (docs/aim.md, "Templates"). Pure: from the fetched state and the
// discovery step to the Job and cache to apply, the components (RuntimeConfig, Model, Discovery, GPU) and
// the status fields (profile, model sources, resolved hardware, discovery bookkeeping).

import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMHardware, AIMServiceTemplateStatus } from '../../../apis/aim/index.ts';
import { infrastructureError } from '../../../engine/errors.ts';
import type { FetchResult } from '../../../engine/fetch-result.ts';
import type { ComponentHealth } from '../../../engine/health.ts';
import { PlanResult } from '../../../engine/plan.ts';
import type { EngineStatus, MaybeHealth } from '../../../engine/types.ts';
import { buildDiscoveryJob } from '../catalog/discovery.ts';
import {
  GPU_DEVICE_ID_LABEL,
  GPU_DEVICE_IDS,
  gpuAvailability,
  hardwareSummary,
  normalizeGpuModel,
} from '../catalog/gpu.ts';
import { AIMTemplateCaches, type AnyTemplate } from '../shared/kinds.ts';
import { podProblem } from '../shared/pod-health.ts';
import {
  type AimRuntimeConfig,
  runtimeConfigHealth,
  setResolvedRuntimeConfig,
} from '../shared/runtime-config-source.ts';
import type { DiscoveryStep } from './discovery-plan.ts';
import type { TemplateFetch } from './fetch.ts';

export interface TemplateObservation extends TemplateFetch {
  step: DiscoveryStep;
}

export const THROTTLE_RETRY_MS = 5_000;

/** discovery's answer for the GPU, else the spec's */
export function resolvedHardware(t: AnyTemplate, obs: TemplateObservation): AIMHardware | undefined {
  const meta =
    obs.step.kind === 'parsed'
      ? obs.step.result.profile.metadata
      : obs.step.kind === 'known'
        ? t.status?.profile?.metadata
        : undefined;
  const spec = t.spec.hardware;
  if (meta?.gpu && spec?.gpu?.minVram === undefined) {
    return {
      ...(spec ?? {}),
      gpu: {
        ...(spec?.gpu ?? {}),
        model: normalizeGpuModel(meta.gpu),
        requests: meta.gpuCount ?? spec?.gpu?.requests ?? 1,
      },
    };
  }
  return spec;
}

function nodeAffinity(hw: AIMHardware | undefined): Record<string, unknown> | undefined {
  const model = hw?.gpu?.model ? normalizeGpuModel(hw.gpu.model) : undefined;
  if (!model) return undefined;
  const ids = Object.entries(GPU_DEVICE_IDS)
    .filter(([, m]) => m === model)
    .map(([id]) => id);
  if (ids.length === 0) return undefined;
  return {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: GPU_DEVICE_ID_LABEL, operator: 'In', values: ids }] }],
    },
  };
}

function cacheObject(t: AnyTemplate): KubeObject {
  const caching = (t.spec as { caching?: { env?: Array<{ name: string; value?: string }> } }).caching;
  return {
    apiVersion: AIMTemplateCaches.apiVersion,
    kind: AIMTemplateCaches.kind,
    metadata: { name: t.metadata.name ?? '', namespace: t.metadata.namespace ?? '' },
    spec: {
      templateName: t.metadata.name ?? '',
      templateScope: 'Namespace',
      mode: 'Shared',
      ...(caching?.env?.length ? { env: caching.env.map((e) => ({ ...e })) } : {}),
      ...(t.spec.runtimeConfigName ? { runtimeConfigName: t.spec.runtimeConfigName } : {}),
    },
  };
}

const discovered = (s: DiscoveryStep) => s.kind === 'inline' || s.kind === 'known' || s.kind === 'parsed';

export function planTemplate(t: AnyTemplate, obs: TemplateObservation): PlanResult {
  const plan = new PlanResult();
  const step = obs.step;
  if (step.kind === 'start' && obs.model.ok()) {
    const hw = t.spec.hardware?.gpu;
    const model = obs.model.value;
    plan.apply(
      buildDiscoveryJob({
        name: step.jobName,
        namespace: obs.jobNamespace,
        templateName: t.metadata.name ?? '',
        image: model.spec.image,
        template: {
          metric: t.spec.metric,
          precision: t.spec.precision,
          profileId: t.spec.profileId,
          env: t.spec.env,
          gpuModel: hw?.model,
          gpuCount: hw?.requests,
        },
        imagePullSecrets: t.spec.imagePullSecrets ?? model.spec.imagePullSecrets,
        serviceAccountName: t.spec.serviceAccountName ?? model.spec.serviceAccountName,
      }),
    );
  }
  if (step.kind === 'failed') plan.requeueAfter(step.retryInMs);
  if (step.kind === 'throttled') plan.requeueAfter(THROTTLE_RETRY_MS);
  // a discovery pod that cannot start changes nothing on its Job: look at it again
  if (step.kind === 'running' && obs.discoveryPods && obs.discoveryPods.state !== 'Ready')
    plan.requeueAfter(THROTTLE_RETRY_MS);
  const caching = (t.spec as { caching?: { enabled?: boolean } }).caching?.enabled === true;
  const gpuOk = obs.gpus.ok() && gpuAvailability(resolvedHardware(t, obs), obs.gpus.value).state === 'Ready';
  if (caching && t.metadata.namespace && discovered(step) && gpuOk) plan.apply(cacheObject(t));
  return plan;
}

function discoveryHealth(step: DiscoveryStep): ComponentHealth {
  const c = 'Discovery';
  switch (step.kind) {
    case 'inline':
      return {
        component: c,
        state: 'Ready',
        reason: 'InlineModelSources',
        message: 'spec.modelSources is set: no discovery needed',
      };
    case 'known':
    case 'parsed':
      return {
        component: c,
        state: 'Ready',
        reason: 'DiscoveryComplete',
        message: 'the model image reported its profile',
      };
    case 'start':
    case 'running':
      return {
        component: c,
        state: 'Progressing',
        reason: 'AwaitingDiscovery',
        message: `discovery Job ${step.jobName} is running the image's dry-run`,
      };
    case 'throttled':
      return {
        component: c,
        state: 'Progressing',
        reason: 'DiscoveryThrottled',
        message: `${step.active} discovery Jobs are running cluster-wide (limit 10); retrying in 5 s`,
      };
    case 'blocked':
      return { component: c, state: 'Pending', reason: 'AwaitingModel', message: step.message };
    case 'failed':
      return {
        component: c,
        state: 'Degraded',
        reason: 'DiscoveryFailed',
        message: `${step.message}; attempt ${step.attempts}, retrying in ${Math.ceil(step.retryInMs / 1000)} s`,
      };
    case 'unparseable':
      return { component: c, state: 'Degraded', reason: 'DiscoveryFailed', message: step.message };
  }
}

function gpuHealth(t: AnyTemplate, obs: TemplateObservation): MaybeHealth {
  if (!obs.gpus.ok())
    return {
      component: 'GPU',
      errors: [
        infrastructureError('GPUCheckFailed', `reading the nodes' GPU labels: ${String(obs.gpus.error ?? 'failed')}`),
      ],
    };
  const v = gpuAvailability(resolvedHardware(t, obs), obs.gpus.value);
  return {
    component: 'GPU',
    state: v.state,
    reason: v.reason === 'NoGPURequired' ? 'GPUAvailable' : v.reason,
    message: v.message,
  };
}

export function templateHealth(
  t: AnyTemplate,
  obs: TemplateObservation,
  rc: FetchResult<AimRuntimeConfig> | undefined,
): MaybeHealth[] {
  const model = obs.model.toUpstreamComponentHealth(t.metadata.namespace ? 'Model' : 'ClusterModel', (m) => ({
    state: 'Ready',
    reason: 'ModelFound',
    message: `${m.kind} ${m.metadata.name} (image ${m.spec.image})`,
  }));
  const where = `${t.kind} ${t.metadata.namespace ? `${t.metadata.namespace}/` : ''}${t.metadata.name}`;
  const pods = podProblem('DiscoveryPods', obs.discoveryPods, {
    pullSecrets: `spec.imagePullSecrets of ${where} (or of its model)`,
    resources: `spec.resources of ${where}`,
  });
  return [runtimeConfigHealth(rc), model, discoveryHealth(obs.step), pods, gpuHealth(t, obs)];
}

type TemplateStatus = EngineStatus & AIMServiceTemplateStatus;

function setDiscovery(status: TemplateStatus, obs: TemplateObservation): void {
  const step = obs.step;
  const now = new Date(obs.now).toISOString().replace(/\.\d+Z$/, 'Z');
  if (step.kind === 'start') {
    if (status.discovery?.specHash !== obs.specHash) {
      delete status.profile;
      delete status.modelSources;
    }
    status.discovery = {
      specHash: obs.specHash,
      attempts: step.attempt,
      lastAttemptTime: now,
      ...(status.discovery?.lastFailureReason && step.attempt > 1
        ? { lastFailureReason: status.discovery.lastFailureReason }
        : {}),
    };
    status.discoveryJob = { kind: 'Job', name: step.jobName, namespace: obs.jobNamespace };
  } else if (step.kind === 'failed' || step.kind === 'unparseable') {
    status.discovery = { ...(status.discovery ?? {}), specHash: obs.specHash, lastFailureReason: step.message };
  } else if (step.kind === 'parsed') {
    status.profile = step.result.profile;
    status.modelSources = step.result.modelSources;
    status.discovery = { ...(status.discovery ?? {}), specHash: obs.specHash };
  }
}

export function decorateTemplateStatus(
  status: TemplateStatus,
  obs: TemplateObservation,
  t: AnyTemplate,
  rc: FetchResult<AimRuntimeConfig> | undefined,
): void {
  setResolvedRuntimeConfig(status, rc);
  if (obs.model.ok()) {
    const m = obs.model.value;
    status.resolvedModel = {
      kind: m.kind,
      name: m.metadata.name ?? '',
      namespace: m.metadata.namespace ?? '',
      scope: m.metadata.namespace ? 'Namespace' : 'Cluster',
      uid: m.metadata.uid ?? '',
    };
  }
  setDiscovery(status, obs);
  if (obs.step.kind === 'inline') status.modelSources = structuredClone(t.spec.modelSources ?? []);
  const hw = resolvedHardware(t, obs);
  if (hw) status.resolvedHardware = hw;
  status.hardwareSummary = hardwareSummary(hw);
  const affinity = nodeAffinity(hw);
  if (affinity) status.resolvedNodeAffinity = affinity;
  else delete status.resolvedNodeAffinity;
  if (obs.cache?.ok())
    status.resolvedCache = {
      kind: 'AIMTemplateCache',
      name: obs.cache.value.metadata.name ?? '',
      namespace: obs.cache.value.metadata.namespace ?? '',
      scope: 'Namespace',
      uid: obs.cache.value.metadata.uid ?? '',
    };
}
