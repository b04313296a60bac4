// Health and status of a LlamaStackDistribution (docs/llamastack.md, "Conditions"): the conditions
// ConfigGenerated, DeploymentUpdated, Available and SecretsResolved with their contract reasons, Ready and
// the phase (Pending, Initializing, Ready, Failed), and the status fields of v1alpha2.
import type { LlamaStackDistribution, LlamaStackDistributionStatus } from '../../apis/llamastack/index.ts';
import {
  asError,
  asInfo,
  type ComponentState,
  type ConditionManager,
  type EngineStatus,
  invalidSpecError,
  type MaybeHealth,
  missingUpstreamError,
  type StatusContext,
  StatusHelper,
  silent,
  withEventReason,
} from '../../engine/index.ts';
import { DISTRIBUTIONS, parseImageOverrides } from './config/index.ts';
import { setModelsAvailable } from './model-check.ts';
import {
  CONFIG_HASH_ANNOTATION,
  containerNameOf,
  type Deployment,
  IMAGE_OVERRIDES_KEY,
  type Ingress,
} from './names.ts';
import { serviceURL } from './network.ts';
import type { LlamaStackObservation } from './observe.ts';
import { setBaseConfigResolved } from './oci-config.ts';
import { configSource } from './plan.ts';
import { setServerHealth } from './server-health.ts';

/** this operator's release, as status.version reports it */
export const OPERATOR_VERSION = '0.1.0';

export type LlamaStackStatus = EngineStatus & LlamaStackDistributionStatus;

const value = <T>(r: { ok(): boolean; value?: T } | undefined): T | undefined => (r?.ok() ? r.value : undefined);

export function phaseOf(state: ComponentState): string {
  if (state === 'Ready' || state === 'Running') return 'Ready';
  if (state === 'Progressing' || state === 'Starting') return 'Initializing';
  if (state === 'Pending') return 'Pending';
  return 'Failed';
}

/** what drives the engine's apply decision: a broken config or a missing Secret or ConfigMap stops every write */
export function llamaStackHealth(cr: LlamaStackDistribution, obs: LlamaStackObservation): MaybeHealth[] {
  const { problem, problemReason } = configSource(cr, obs);
  const c = obs.config;
  const config: MaybeHealth =
    !obs.image.ok || c.kind === 'failed'
      ? {
          component: 'Config',
          errors: [
            invalidSpecError(
              c.kind === 'failed' ? c.error.reason : 'ConfigGenerationFailed',
              c.kind === 'failed' ? c.error.message : (problem ?? ''),
            ),
          ],
        }
      : c.kind === 'waiting'
        ? {
            component: 'Config',
            state: 'Pending',
            reason: 'WaitingForEndpoint',
            message: c.message,
            dependencyType: 'Upstream',
          }
        : problem
          ? {
              component: 'Config',
              errors: [
                problemReason === 'InvalidOverrideConfig'
                  ? invalidSpecError(problemReason, problem)
                  : missingUpstreamError('ReferenceNotFound', problem),
              ],
            }
          : { component: 'Config', state: 'Ready', reason: 'ConfigReady', message: 'config.yaml is known' };
  const ca = obs.caBundle;
  const caBundle: MaybeHealth = ca && {
    component: 'CABundle',
    ...(ca.ok
      ? { state: 'Ready', reason: 'CABundleMerged', message: `${ca.certificates} certificate(s) in the CA bundle` }
      : {
          errors: [
            ca.reason === 'ReferenceNotFound'
              ? missingUpstreamError(ca.reason, ca.message)
              : invalidSpecError(ca.reason, ca.message),
          ],
        }),
  };
  const secrets: MaybeHealth = obs.secretProblems.length > 0 && {
    component: 'Secrets',
    errors: obs.secretProblems.map((p) => missingUpstreamError(p.reason, p.message)),
  };
  const d = value(obs.fetched.deployment);
  const deployment: MaybeHealth = {
    component: 'Deployment',
    state: d && deploymentAvailable(d) ? 'Ready' : 'Progressing',
    dependencyType: 'Downstream',
  };
  return [config, caBundle, secrets, deployment];
}

export function deploymentAvailable(d: Deployment): boolean {
  const want = d.spec?.replicas ?? 1;
  return (
    (d.status?.availableReplicas ?? 0) >= want &&
    (d.status?.updatedReplicas ?? 0) >= want &&
    (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** the live Deployment runs the image and config.yaml this reconcile wants */
function deploymentCurrent(d: Deployment | undefined, obs: LlamaStackObservation, cr: LlamaStackDistribution): boolean {
  if (!d || !obs.image.ok) return false;
  const containers =
    (d.spec?.template?.spec as { containers?: Array<{ name: string; image?: string }> } | undefined)?.containers ?? [];
  const image = containers.find((c) => c.name === containerNameOf(cr))?.image;
  const want = configSource(cr, obs).source?.hash?.slice(0, 16);
  return image === obs.image.image && d.spec?.template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] === want;
}

function setSecrets(cm: ConditionManager, obs: LlamaStackObservation): void {
  const [first] = obs.secretProblems;
  if (first)
    cm.markFalse(
      'SecretsResolved',
      first.reason,
      obs.secretProblems.map((p) => p.message).join('; '),
      asError(),
      withEventReason('SecretResolutionFailed'),
    );
  else
    cm.markTrue(
      'SecretsResolved',
      'AllSecretsFound',
      `${obs.secretRefs.length} Secret reference(s) resolved`,
      asInfo(),
    );
}

function setConfigGenerated(cm: ConditionManager, obs: LlamaStackObservation, recordedHash: string | undefined): void {
  const c = obs.config;
  if (c.kind === 'generated') {
    // a config not yet recorded as rolled out is news even while the condition stays True: say so (Normal
    // event ConfigGenerated, naming the ConfigMap) until status records it
    const fresh =
      c.generated.hash !== recordedHash
        ? [
            {
              recurring: true,
              eventMessage: `Generated config.yaml (ConfigMap ${c.configMap}) with ${c.generated.providerCount} providers and ${c.generated.resourceCount} resources`,
            },
          ]
        : [];
    const replaced = c.generated.replacedByExternal;
    cm.markTrue(
      'ConfigGenerated',
      'ConfigGenerationSucceeded',
      `Generated config.yaml with ${c.generated.providerCount} providers and ${c.generated.resourceCount} resources${replaced.length ? `; spec.externalProviders replaced the generated ${replaced.join(', ')}` : ''}`,
      asInfo(),
      withEventReason('ConfigGenerated'),
      ...fresh,
    );
  } else if (c.kind === 'failed') {
    const reason =
      obs.imageChanged && c.error.reason === 'ConfigGenerationFailed' ? 'UpgradeConfigFailure' : c.error.reason;
    cm.markFalse('ConfigGenerated', reason, c.error.message, asError(), withEventReason('ConfigGenerationFailed'));
  } else if (c.kind === 'waiting') cm.markUnknown('ConfigGenerated', 'WaitingForEndpoint', c.message, asInfo());
  else cm.delete('ConfigGenerated');
}

/** kinds the plan writes after the Deployment: a failure there leaves the Deployment written */
const WRITTEN_AFTER_DEPLOYMENT = new Set(['HorizontalPodAutoscaler', 'Ingress']);

/** the failed write that kept the Deployment from being written this run, described for the condition */
export function blockingWriteFailure(
  ctx: StatusContext<LlamaStackDistribution>,
  hasDeployment: boolean,
): { reason: string; message: string } | undefined {
  const stopped = ctx.apply?.stoppedAt;
  if (!stopped || (stopped.verb !== 'delete' && WRITTEN_AFTER_DEPLOYMENT.has(stopped.ref.kind))) return undefined;
  const kept = hasDeployment ? 'the running Deployment was left unchanged' : 'no Deployment was created';
  return { reason: stopped.error.reason, message: `${stopped.error.message}; ${kept}` };
}

function setDeploymentConditions(
  cm: ConditionManager,
  cr: LlamaStackDistribution,
  obs: LlamaStackObservation,
  ctx: StatusContext<LlamaStackDistribution>,
  blocked: string | undefined,
): void {
  const d = value(obs.fetched.deployment);
  const failedWrite = blockingWriteFailure(ctx, d !== undefined);
  const applyError = ctx.errors.find((e) =>
    e.message.includes(`Deployment ${cr.metadata.namespace}/${cr.metadata.name}`),
  );
  if (blocked)
    cm.markFalse(
      'DeploymentUpdated',
      'DeploymentUpdateSkipped',
      `${d ? 'kept the running Deployment unchanged' : 'no Deployment created'}: ${blocked}`,
      asInfo(),
    );
  else if (failedWrite)
    cm.markFalse(
      'DeploymentUpdated',
      'DeploymentUpdateFailed',
      failedWrite.message,
      asError(),
      withEventReason('DeploymentUpdateFailed'),
    );
  else if (applyError) cm.markFalse('DeploymentUpdated', 'DeploymentUpdateFailed', applyError.message, asError());
  else if (deploymentCurrent(d, obs, cr)) {
    const image = obs.image.ok ? obs.image.image : '';
    // a new image alone (an operator upgrade, an image override) keeps the condition True: say so once,
    // until status records the new image
    const newImage = obs.imageChanged
      ? [
          {
            recurring: true,
            eventMessage: `Deployment ${cr.metadata.name} now runs ${image} (was ${cr.status?.resolvedDistribution?.image})`,
          },
        ]
      : [];
    cm.markTrue(
      'DeploymentUpdated',
      'DeploymentUpdateSucceeded',
      `Deployment ${cr.metadata.name} runs ${image}`,
      asInfo(),
      withEventReason('DeploymentUpdated'),
      ...newImage,
    );
  } else
    cm.markUnknown('DeploymentUpdated', 'DeploymentUpdatePending', 'the Deployment has not been updated yet', asInfo());
  if (!d) cm.markFalse('Available', 'ReplicasUnavailable', 'the Deployment does not exist yet', asInfo());
  else if (deploymentAvailable(d))
    cm.markTrue(
      'Available',
      'MinimumReplicasAvailable',
      `${d.status?.availableReplicas ?? 0}/${d.spec?.replicas ?? 1} replicas available`,
      asInfo(),
    );
  else if ((d.status?.updatedReplicas ?? 0) < (d.spec?.replicas ?? 1))
    cm.markFalse(
      'Available',
      'RolloutInProgress',
      `Deployment is rolling out: ${d.status?.updatedReplicas ?? 0}/${d.spec?.replicas ?? 1} updated`,
      asInfo(),
    );
  else
    cm.markFalse(
      'Available',
      'ReplicasUnavailable',
      `Deployment is scaling: ${d.status?.availableReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
      asInfo(),
    );
}

function routeURL(ingress: Ingress | undefined, host: string | undefined): string | undefined {
  if (!ingress) return undefined;
  const lb = ingress.status?.loadBalancer?.ingress?.[0];
  const h = lb?.hostname ?? lb?.ip ?? host;
  return h ? `http://${h}` : '';
}

function setFields(status: LlamaStackStatus, cr: LlamaStackDistribution, obs: LlamaStackObservation): void {
  const f = obs.fetched;
  const d = value(f.deployment);
  status.availableReplicas = d?.status?.availableReplicas ?? 0;
  if (f.service.ok()) status.serviceURL = serviceURL(cr, obs.port);
  else delete status.serviceURL;
  const route = routeURL(value(f.ingress), obs.spec.networking?.expose?.hostname);
  if (route === undefined) delete status.routeURL;
  else status.routeURL = route;
  const overrides = parseImageOverrides(value(f.operatorConfig)?.data?.[IMAGE_OVERRIDES_KEY]).images;
  const c = obs.config;
  const server = f.server?.reachable ? f.server : undefined;
  status.distributionConfig = {
    activeDistribution: obs.spec.distribution.name ?? 'custom',
    availableDistributions: { ...DISTRIBUTIONS, ...overrides },
    // what the server runs, with each provider's health, once read; until then the generated list (whose
    // providers with an environment-dependent id may not exist at run time: not listed)
    ...(server
      ? { providers: server.providers }
      : c.kind === 'generated'
        ? { providers: c.generated.providers.filter((p) => !p.provider_id.includes('${')) }
        : {}),
  };
  if (server)
    status.version = {
      operatorVersion: OPERATOR_VERSION,
      ...(server.version ? { llamaStackServerVersion: server.version } : {}),
      lastUpdated: server.checkedAt,
    };
  if (c.kind === 'generated' && deploymentCurrent(d, obs, cr) && obs.image.ok) {
    status.resolvedDistribution = { image: obs.image.image, configSource: c.source, configHash: c.generated.hash };
    const cm = value(f.configMaps)?.find((m) => m.metadata.name === c.configMap);
    status.configGeneration = {
      configMapName: c.configMap,
      ...(cm?.metadata.creationTimestamp ? { generatedAt: cm.metadata.creationTimestamp } : {}),
      providerCount: c.generated.providerCount,
      resourceCount: c.generated.resourceCount,
      configVersion: c.generated.configVersion,
      ...(cr.metadata.generation !== undefined ? { observedGeneration: cr.metadata.generation } : {}),
    };
  } else if ((c.kind === 'override' || c.kind === 'image-default') && deploymentCurrent(d, obs, cr) && obs.image.ok) {
    status.resolvedDistribution = { image: obs.image.image, configSource: 'override' };
    delete status.configGeneration;
  }
}

export function setLlamaStackStatus(
  status: LlamaStackStatus,
  cm: ConditionManager,
  obs: LlamaStackObservation,
  ctx: StatusContext<LlamaStackDistribution>,
): void {
  const cr = ctx.object;
  const h = new StatusHelper(status, cm, { statusField: 'phase', mapState: phaseOf });
  const { problem, problemReason } = configSource(cr, obs);
  const c = obs.config;
  const failure = !obs.image.ok
    ? obs.image.message
    : c.kind === 'failed'
      ? c.error.message
      : (obs.secretProblems[0]?.message ??
        (obs.caBundle && !obs.caBundle.ok ? obs.caBundle.message : undefined) ??
        (c.kind !== 'waiting' ? problem : undefined));
  const blocked = failure ?? (c.kind === 'waiting' ? c.message : undefined);
  const recordedHash = status.resolvedDistribution?.configHash;
  setSecrets(cm, obs);
  setConfigGenerated(cm, obs, recordedHash);
  setDeploymentConditions(cm, cr, obs, ctx, blocked);
  const unhealthy = setServerHealth(cm, obs.fetched.server);
  const modelMissing = setModelsAvailable(cm, obs.fetched.models ?? []);
  setBaseConfigResolved(cm, obs.fetched.ociConfig, obs.builtInBase);
  setFields(status, cr, obs);
  const d = value(obs.fetched.deployment);
  const applyError = blockingWriteFailure(ctx, d !== undefined) ?? ctx.errors[0];
  if (failure)
    h.failed(
      c.kind === 'failed'
        ? c.error.reason
        : (obs.secretProblems[0]?.reason ??
            (obs.caBundle && !obs.caBundle.ok ? obs.caBundle.reason : undefined) ??
            problemReason ??
            'ConfigurationInvalid'),
      failure,
      // ConfigGenerated and SecretsResolved already say it with their own Warning: one event per cause
      ...(c.kind === 'failed' || obs.secretProblems.length > 0 ? [silent()] : []),
    );
  else if (applyError)
    h.failed(applyError.reason, applyError.message, ...(blockingWriteFailure(ctx, d !== undefined) ? [silent()] : []));
  else if (c.kind === 'waiting') h.pending('WaitingForEndpoint', c.message);
  else if (!d) h.pending('DeploymentPending', 'the Deployment has not been created yet');
  else if (!cm.isTrue('Available'))
    h.progressing('Initializing', cm.get('Available')?.message ?? 'the Deployment is starting');
  else if (unhealthy) h.failed(unhealthy.reason, unhealthy.message);
  // a reference that does not answer yet is waited for; one that answers without the model is a fault
  else if (modelMissing?.reason === 'ModelEndpointUnreachable') h.pending(modelMissing.reason, modelMissing.message);
  else if (modelMissing) h.failed(modelMissing.reason, modelMissing.message, silent());
  else h.ready('AllComponentsReady', `Llama Stack is serving at ${status.serviceURL ?? 'its Service'}`);
}
