// The AIMArtifact controller (docs/aim.md, "Caches and artifacts"): one model source onto one PVC. It
// follows its PVC and Jobs, and the runtime config it resolves (storage class, headroom, download env).

import { type Controller, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { DEFAULT_DOWNLOAD_RETRY_MS } from '../../../common/model-storage/index.ts';
import {
  type Clock,
  type DomainReconciler,
  type EngineStatus,
  Pipeline,
  pipelineReconciler,
  runtimeConfigValue,
  systemClock,
} from '../../../engine/index.ts';
import { type PolicyRule, READ, rule, WRITE } from '../../rbac.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import { type AIMArtifact, AIMArtifacts } from '../shared/kinds.ts';
import { runtimeConfigLabelPropagator } from '../shared/label-propagator.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import type { SecretVersionSource } from '../shared/secret-names.ts';
import {
  type AimRuntimeConfig,
  aimRuntimeConfigSource,
  setResolvedRuntimeConfig,
} from '../shared/runtime-config-source.ts';
import { type ArtifactFetch, ArtifactJobs, ArtifactPvcs, fetchArtifactState } from './fetch.ts';
import {
  type ArtifactObservation,
  artifactHealth,
  composeArtifact,
  decorateArtifactStatus,
  planArtifact,
} from './plan.ts';
import { setDownloadComplete } from './verify.ts';

export const ARTIFACT_CONTROLLER = 'aim-artifact';

export const ARTIFACT_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimartifacts'], READ),
  rule('aim.eai.amd.com', ['aimartifacts/status'], ['patch']),
  rule('', ['persistentvolumeclaims'], [...READ, ...WRITE]),
];

export interface ArtifactControllerOptions {
  operatorNamespace: string;
  clock?: Clock;
  /** how long a failed download waits before the next attempt (default 5 min) */
  retryMs?: number;
  /** the versions of the Secrets artifacts name: a download refused for credentials starts again once one changes */
  secretVersions?: SecretVersionSource;
}

export function artifactReconciler(
  opts: ArtifactControllerOptions,
): DomainReconciler<AIMArtifact, ArtifactFetch, ArtifactObservation, AimRuntimeConfig, EngineStatus> {
  const clock = opts.clock ?? systemClock;
  return {
    fetchRemoteState: (ctx) =>
      fetchArtifactState(
        ctx,
        clock,
        opts.secretVersions ? { source: opts.secretVersions, operatorNamespace: opts.operatorNamespace } : undefined,
      ),
    composeState: (ctx, fetched) =>
      composeArtifact(ctx.object, fetched, runtimeConfigValue(ctx), opts.retryMs ?? DEFAULT_DOWNLOAD_RETRY_MS),
    planResources: ({ object }, obs) => planArtifact(object, obs),
    getComponentHealth: (obs, { object, runtimeConfig }) => artifactHealth(object, obs, runtimeConfig),
    decorateStatus(status, cm, obs, { object, runtimeConfig }) {
      decorateArtifactStatus(status, obs, object);
      setDownloadComplete(cm, obs);
      setResolvedRuntimeConfig(status, runtimeConfig);
    },
  };
}

export function artifactPipeline(opts: ArtifactControllerOptions) {
  return new Pipeline({
    name: ARTIFACT_CONTROLLER,
    reconciler: artifactReconciler(opts),
    runtimeConfig: aimRuntimeConfigSource<AIMArtifact>(opts.operatorNamespace),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    labelPropagators: [runtimeConfigLabelPropagator],
    observedGeneration: true,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
}

export async function registerAimArtifactController(
  mgr: Manager,
  opts: ArtifactControllerOptions,
): Promise<Controller> {
  const builder = mgr
    .controller(ARTIFACT_CONTROLLER)
    .for(AIMArtifacts, { predicates: [ignoreOwnStatusWrites(ARTIFACT_CONTROLLER)] })
    .owns(ArtifactJobs as KindRef<KubeObject>)
    .owns(ArtifactPvcs as KindRef<KubeObject>)
    .withOptions({ levelBased: true, concurrency: 4 });
  await watchRuntimeConfigs(mgr, builder, AIMArtifacts, opts.operatorNamespace);
  return builder.complete(pipelineReconciler(AIMArtifacts, artifactPipeline(opts)));
}
