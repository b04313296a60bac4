// A provider's registration: its InferenceProviderConfig (spec = what it can run and its selection rules)
// applied when it starts leading, then status.ready / version / lastHeartbeat kept fresh every heartbeat
// interval, and ready=false when it stops. It also finds out whether the upstream kind is served: when
// the CRD is missing the provider does not crash-loop (upstream's provider did), it reports ready=false with
// a condition saying so and retries discovery until the CRD appears.

import { Deployments, isNoKindMatch, type KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import type { Runnable } from '@modelplane/runtime/manager';
import {
  INFERENCE_PROVIDER_CONFIG_KIND,
  type InferenceProviderConfig,
  type InferenceProviderConfigStatus,
  KAR_API_VERSION,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
} from '../../../apis/kubeairunway/index.ts';
import { type Clock, type Condition, ConditionManager, silent, writeOwnedStatus } from '../../../engine/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { UPSTREAM_CRD_CONDITION } from './names.ts';
import { type OperatorVerdict, operatorVerdict, UPSTREAM_READY_CONDITION } from './operator-check.ts';

const OPERATOR_FIRST_RETRY_MS = 500;

import { crdMissingMessage } from './plan.ts';

export interface RegistrationOptions {
  heartbeatIntervalMs: number;
  /** how often discovery is retried while the upstream CRD is missing */
  discoveryRetryMs: number;
  clock: Clock;
  log: Logger;
  /** called once, the first time the upstream kind is found served */
  onUpstreamServed: () => Promise<void> | void;
  /**
   * the label selector of the upstream operator's Deployment: the provider is ready only while one has an
   * available replica (operator-check.ts). Unset: only the CRD is checked.
   */
  operatorSelector?: string;
}

/** a leader-election Runnable of the provider's Manager (packages/runtime's Runnable) */
export class ProviderRegistration implements Runnable {
  readonly name: string;
  private served = false;
  private operator: OperatorVerdict | undefined;
  /** how long the next quick look waits while the operator is not running (doubles up to discoveryRetryMs) */
  private operatorRetryMs = OPERATOR_FIRST_RETRY_MS;
  private servedAnnounced = false;
  private running = false;
  private registered = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private discovery: NodeJS.Timeout | undefined;
  private conditions: Condition[] = [];
  /** beats run one at a time: the timers and start/stop never interleave their writes */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: KubeClient,
    private readonly def: ProviderDefinition,
    private readonly opts: RegistrationOptions,
  ) {
    this.name = `${def.name}-provider-registration`;
  }

  /** whether the upstream operator ran at the last look (undefined: not checked, or not looked at yet) */
  get operatorRunning(): boolean | undefined {
    return this.operator?.running;
  }

  /** whether the upstream kind was served at the last discovery */
  get upstreamServed(): boolean {
    return this.served;
  }

  get version(): string {
    return `${this.def.name}-provider:${this.def.version}`;
  }

  /** registers and starts the heartbeat; never throws (failures are retried on the next beat) */
  start(): Promise<void> {
    if (this.running) return this.chain;
    this.running = true;
    // (re)applied every time this process starts leading: the spec is the running binary's
    this.registered = false;
    this.heartbeat = setInterval(() => void this.beat(), this.opts.heartbeatIntervalMs);
    this.heartbeat.unref();
    return this.beat();
  }

  /** stops beating and reports ready=false (best effort) */
  async stop(): Promise<void> {
    if (!this.running) return this.chain;
    this.running = false;
    clearInterval(this.heartbeat);
    clearTimeout(this.discovery);
    return this.enqueue(() => this.writeStatus());
  }

  /** one heartbeat: register if not yet done, look the upstream kind up again, write the status */
  beat(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.running) return;
      if (!this.registered) await this.register();
      await this.discover();
      await this.checkOperator();
      await this.writeStatus();
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain
      .then(step)
      .catch((err) =>
        this.opts.log.error('provider registration step failed', { provider: this.def.name, error: err }),
      );
    return this.chain;
  }

  private async register(): Promise<void> {
    const applied = await this.client.apply<InferenceProviderConfig>({
      apiVersion: KAR_API_VERSION,
      kind: INFERENCE_PROVIDER_CONFIG_KIND,
      metadata: { name: this.def.name, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
      spec: this.def.config,
    });
    this.conditions = (applied.status?.conditions ?? []).filter(
      (c) => c.type === UPSTREAM_CRD_CONDITION || (c.type === UPSTREAM_READY_CONDITION && this.opts.operatorSelector),
    ) as Condition[];
    this.registered = true;
    this.opts.log.info('registered InferenceProviderConfig', { provider: this.def.name, version: this.version });
  }

  /** asks discovery afresh; a failed lookup (network, 5xx) keeps the last answer */
  private async discover(): Promise<void> {
    const { apiVersion, kind } = this.def.upstream;
    this.client.mapper.invalidate(apiVersion);
    let answered = true;
    try {
      await this.client.mapper.mapping(apiVersion, kind);
      this.served = true;
    } catch (err) {
      answered = isNoKindMatch(err);
      if (!answered)
        this.opts.log.error('discovery of the upstream kind failed', {
          provider: this.def.name,
          apiVersion,
          kind,
          error: err,
        });
      else if (this.served)
        this.opts.log.error('the upstream CRD is no longer served', { provider: this.def.name, apiVersion, kind });
      if (answered) this.served = false;
    }
    if (this.served && !this.servedAnnounced) {
      await this.opts.onUpstreamServed();
      this.servedAnnounced = true;
    }
    // look again soon while the kind is missing or discovery could not tell
    if ((!this.served || !answered) && this.running && !this.discovery) {
      this.discovery = setTimeout(() => {
        this.discovery = undefined;
        void this.beat();
      }, this.opts.discoveryRetryMs);
      this.discovery.unref();
    }
  }

  /** lists the operator's Deployments; a failed list keeps the last verdict */
  private async checkOperator(): Promise<void> {
    const selector = this.opts.operatorSelector;
    if (!selector) return;
    try {
      const list = await this.client.list(Deployments, { labelSelector: selector });
      this.operator = operatorVerdict(list.items, selector, `the ${this.def.displayName} operator`);
    } catch (err) {
      this.opts.log.error('listing the upstream operator Deployments failed', { provider: this.def.name, error: err });
    }
    if (this.operator?.running) {
      this.operatorRetryMs = OPERATOR_FIRST_RETRY_MS;
      return;
    }
    // look again soon (an operator starting takes seconds), backing off to the discovery interval
    if (this.running && !this.discovery) {
      this.discovery = setTimeout(() => {
        this.discovery = undefined;
        void this.beat();
      }, this.operatorRetryMs);
      this.discovery.unref();
      this.operatorRetryMs = Math.min(this.operatorRetryMs * 2, this.opts.discoveryRetryMs);
    }
  }

  private async writeStatus(): Promise<void> {
    if (!this.registered) return;
    const cm = new ConditionManager(this.conditions, { now: () => this.opts.clock.now() });
    if (this.operator) {
      const v = this.operator;
      if (v.running) cm.markTrue(UPSTREAM_READY_CONDITION, v.reason, v.message, silent());
      else cm.markFalse(UPSTREAM_READY_CONDITION, v.reason, v.message, silent());
    }
    if (this.served)
      cm.markTrue(
        UPSTREAM_CRD_CONDITION,
        'CRDInstalled',
        `${this.def.upstream.kind} (${this.def.upstream.apiVersion}) is served`,
        silent(),
      );
    else
      cm.markFalse(
        UPSTREAM_CRD_CONDITION,
        'CRDNotInstalled',
        `${crdMissingMessage(this.def)}; retrying discovery every ${Math.round(this.opts.discoveryRetryMs / 1000)}s`,
        silent(),
      );
    const conditions = cm.list();
    const status: InferenceProviderConfigStatus = {
      ready: this.running && this.served && (this.operator?.running ?? !this.opts.operatorSelector),
      version: this.version,
      lastHeartbeat: new Date(this.opts.clock.now()).toISOString(),
      // always the API this provider builds, served or not: the core checks whether it is served
      upstreamCRDVersion: this.def.upstream.apiVersion,
      upstreamKind: this.def.upstream.kind,
      conditions,
    };
    // the provider is the only writer of its registration's status, so no resourceVersion precondition
    const object = {
      apiVersion: KAR_API_VERSION,
      kind: INFERENCE_PROVIDER_CONFIG_KIND,
      metadata: { name: this.def.name },
    };
    await writeOwnedStatus(
      this.client,
      object,
      { ...status },
      { fieldManager: this.client.fieldManager ?? '', before: {}, precondition: false },
    );
    this.conditions = conditions;
  }
}
