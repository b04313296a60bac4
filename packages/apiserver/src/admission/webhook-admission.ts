// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins. Mutating webhooks run one after
// another on the object as the previous one left it (JSON patches applied; IfNeeded webhooks re-run once
// when a later one changed the object); validating webhooks run in parallel and the first failure in
// webhook order decides. Call failures follow failurePolicy: Fail is kube's 500
// `failed calling webhook "<name>": <cause>`, Ignore logs and goes on. Webhooks never see writes to
// webhook configurations, as in kube (a broken webhook could otherwise lock itself in).
import { randomUUID } from 'node:crypto';
import { toCel } from '@modelplane/apimachinery/cel';
import { errors, qualifiedResource, StatusError } from '../errors.ts';
import { readScale, scaleToCandidate } from '../handlers/scale.ts';
import type { AdmissionAttributes, AdmissionChain } from '../objects/hooks.ts';
import { deepEqual, isPlainObject } from '../objects/meta.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { groupVersion } from '../resource-types/resource-type.ts';
import type { ObjectStore } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import { type CompiledWebhook, MUTATING_CONFIGS, VALIDATING_CONFIGS, WebhookConfigCache } from './config.ts';
import { matchingVersion, type RequestFacts, requestFacts, selectorsMatch } from './matching.ts';
import {
  type AdmissionResult,
  admissionRequest,
  admissionReview,
  denial,
  InvalidAdmissionResponse,
  type ReviewTarget,
  verifyAdmissionResponse,
  withWarnings,
} from './review.ts';
import type { ServiceEndpoints } from './service-endpoints.ts';
import { postJson, type ResolveDeps, resolveTarget, WebhookCallError } from './webhook-client.ts';

export interface AdmissionHost {
  store: ObjectStore;
  serviceEndpoints: ServiceEndpoints;
  /** converts objects of one resource to a version (conversion webhooks included) */
  convert(rt: ResourceType, objects: KubeObject[], version: string): Promise<KubeObject[]>;
  /** where failing-open webhook calls are reported; default console.warn */
  warn?: (message: string) => void;
}

type Obj = Record<string, unknown>;

/** A webhook the request reaches, with the objects as that webhook is to see them. */
interface Invocation {
  hook: CompiledWebhook;
  version: string;
  target: ReviewTarget;
  object: Obj | undefined;
  oldObject: Obj | undefined;
}

/** A webhook that could not be called or answered unusably; subject to failurePolicy. */
class CallFailure extends Error {}

const EXEMPT = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);
const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

export class WebhookAdmission implements AdmissionChain {
  /** where failing-open webhooks are reported */
  private readonly warn: (message: string) => void;
  private readonly mutating: WebhookConfigCache;
  private readonly validating: WebhookConfigCache;
  private readonly resolveDeps: ResolveDeps;

  constructor(private readonly host: AdmissionHost) {
    this.warn = host.warn ?? ((m) => console.warn(m));
    this.mutating = new WebhookConfigCache(host.store, MUTATING_CONFIGS);
    this.validating = new WebhookConfigCache(host.store, VALIDATING_CONFIGS);
    this.resolveDeps = {
      endpoints: host.serviceEndpoints,
      serviceExists: (ns, name) => host.store.get('/services', ns, name) !== undefined,
    };
  }

  async mutate(attrs: AdmissionAttributes): Promise<KubeObject | undefined> {
    if (exempt(attrs)) return attrs.object;
    const hooks = this.mutating.current();
    if (hooks.length === 0) return attrs.object;
    return this.withWarnings(attrs, () => this.runMutating(hooks, attrs));
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (exempt(attrs)) return;
    // The deleter only calls validate; kube runs the mutating webhooks for DELETE too.
    const mutating = attrs.operation === 'DELETE' ? this.mutating.current() : [];
    const hooks = this.validating.current();
    if (mutating.length === 0 && hooks.length === 0) return;
    await this.withWarnings(attrs, async () => {
      if (mutating.length > 0) await this.runMutating(mutating, attrs);
      if (hooks.length > 0) await this.runValidating(hooks, attrs);
    });
  }

  /** kube sends the warnings recorded so far with an error response too */
  private async withWarnings<T>(attrs: AdmissionAttributes, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof StatusError) throw withWarnings(e, attrs.warnings);
      throw e;
    }
  }

  private async runMutating(hooks: CompiledWebhook[], attrs: AdmissionAttributes): Promise<KubeObject | undefined> {
    const facts = requestFacts(attrs);
    let object = attrs.object;
    const invokedReinvocable: string[] = [];
    const reinvoke = new Set<string>();
    for (const round of [0, 1]) {
      if (round === 1 && reinvoke.size === 0) break;
      for (const hook of hooks) {
        if (round === 1 && !reinvoke.has(hook.id)) continue;
        const current = { ...attrs, object };
        const inv = await this.prepare(hook, current, facts);
        if (!inv) continue;
        const result = await this.call(inv, current, true);
        if (result) {
          attrs.warnings.push(...result.warnings);
          if (!result.allowed) throw denial(hook.name, result.status);
          if (result.patch && result.patch.length > 0) {
            const next = await this.applyPatch(inv, result.patch, current);
            if (!deepEqual(object, next)) {
              // a change makes every earlier IfNeeded webhook eligible for one more call
              for (const id of invokedReinvocable.splice(0)) reinvoke.add(id);
            }
            object = next;
          }
        }
        if (round === 0 && hook.reinvocationPolicy === 'IfNeeded') invokedReinvocable.push(hook.id);
      }
    }
    return object;
  }

  private async runValidating(hooks: CompiledWebhook[], attrs: AdmissionAttributes): Promise<void> {
    const facts = requestFacts(attrs);
    const invocations: Invocation[] = [];
    for (const hook of hooks) {
      const inv = await this.prepare(hook, attrs, facts);
      if (inv) invocations.push(inv);
    }
    if (invocations.length === 0) return;
    const outcomes = await Promise.all(
      invocations.map((inv) =>
        this.call(inv, attrs, false).then(
          (result) => ({ inv, result }),
          (error: unknown) => ({ inv, error }),
        ),
      ),
    );
    let failure: unknown;
    for (const o of outcomes) {
      if ('error' in o) {
        failure ??= o.error;
        continue;
      }
      if (!o.result) continue;
      attrs.warnings.push(...o.result.warnings);
      if (!o.result.allowed) failure ??= denial(o.inv.hook.name, o.result.status);
    }
    if (failure !== undefined) throw failure;
  }

  /** Matches the webhook against the request; undefined when it does not apply. */
  private async prepare(
    hook: CompiledWebhook,
    attrs: AdmissionAttributes,
    facts: RequestFacts,
  ): Promise<Invocation | undefined> {
    const version = matchingVersion(hook, attrs.rt, facts);
    if (!version) return undefined;
    if (!selectorsMatch(hook, this.host.store, attrs, facts, attrs.object)) return undefined;
    const { rt } = attrs;
    let object: KubeObject | undefined = attrs.object;
    let oldObject: KubeObject | undefined = attrs.oldObject;
    const gv = groupVersion(rt.group, version);
    const stale = [object, oldObject].filter((o): o is KubeObject => o !== undefined && o.apiVersion !== gv);
    if (stale.length > 0) {
      const converted = await this.host.convert(rt, stale, version);
      if (object && object.apiVersion !== gv) object = converted.shift();
      if (oldObject && oldObject.apiVersion !== gv) oldObject = converted.shift();
    }
    const scale = facts.subresource === 'scale' && rt.subresources.scale !== undefined;
    const view = (o: KubeObject | undefined): Obj | undefined => (o && scale ? readScale(rt, o) : o);
    const target: ReviewTarget = {
      kind: scale ? SCALE_KIND : { group: rt.group, version, kind: rt.kind },
      resource: { group: rt.group, version, resource: rt.plural },
      requestKind: scale ? SCALE_KIND : { group: rt.group, version: attrs.version, kind: rt.kind },
      requestResource: { group: rt.group, version: attrs.version, resource: rt.plural },
      subresource: attrs.subresource,
    };
    return { hook, version, target, object: view(object), oldObject: view(oldObject) };
  }

  /** Calls the webhook; undefined when it was skipped (matchConditions false, or failing open). */
  private async call(
    inv: Invocation,
    attrs: AdmissionAttributes,
    mutating: boolean,
  ): Promise<AdmissionResult | undefined> {
    const { hook } = inv;
    const uid = randomUUID();
    const request = admissionRequest(uid, inv.target, attrs, inv.object, inv.oldObject);
    if (hook.matchConditions.length > 0 && !this.conditionsMatch(hook, attrs, request, inv)) return undefined;
    try {
      if (attrs.dryRun) {
        if (hook.sideEffects === undefined) throw new CallFailure('Webhook SideEffects is nil');
        if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun')
          throw errors.badRequest(`admission webhook "${hook.name}" does not support dry run`);
      }
      const reviewVersion = hook.admissionReviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
      if (!reviewVersion)
        throw new CallFailure(
          'could not create admission objects: webhook does not accept known AdmissionReview versions',
        );
      let answer: Obj;
      try {
        const target = resolveTarget(hook.clientConfig, hook.timeoutMs, this.resolveDeps);
        answer = await postJson(target, admissionReview(reviewVersion, request), hook.timeoutMs);
      } catch (e) {
        if (!(e instanceof WebhookCallError)) throw e;
        throw new CallFailure(
          e.stage === 'client' ? `could not get REST client: ${e.message}` : `failed to call webhook: ${e.message}`,
        );
      }
      try {
        return verifyAdmissionResponse(answer, reviewVersion, uid, mutating);
      } catch (e) {
        if (e instanceof InvalidAdmissionResponse) throw new CallFailure(e.message);
        throw e;
      }
    } catch (e) {
      if (!(e instanceof CallFailure)) throw e;
      const message = `failed calling webhook "${hook.name}": ${e.message}`;
      if (hook.failurePolicy === 'Ignore') {
        this.warn(`Failed calling webhook, failing open ${hook.name}: ${message}`);
        return undefined;
      }
      throw errors.internal(message);
    }
  }

  /** matchConditions: any false → skip; else an error → Forbidden (or skip under Ignore); else call. */
  private conditionsMatch(hook: CompiledWebhook, attrs: AdmissionAttributes, request: Obj, inv: Invocation): boolean {
    const vars = {
      object: toCel(inv.object ?? null),
      oldObject: toCel(inv.oldObject ?? null),
      request: toCel(request),
      authorizer: null,
    };
    const failures: string[] = [];
    for (const c of hook.matchConditions) {
      if (c.program instanceof Error) {
        failures.push(`compilation error: ${c.program.message}`);
        continue;
      }
      let result: unknown;
      try {
        result = c.program.evaluate(vars);
      } catch (e) {
        failures.push(`expression '${c.program.expression}' resulted in error: ${(e as Error).message}`);
        continue;
      }
      if (result === false) return false;
      if (result !== true)
        failures.push(`expression '${c.program.expression}' resulted in error: must evaluate to bool`);
    }
    if (failures.length === 0) return true;
    if (hook.failurePolicy === 'Ignore') return false;
    const why = failures.length === 1 ? failures[0] : `[${failures.join(', ')}]`;
    throw errors.forbidden(
      `${qualifiedResource(attrs.rt.plural, attrs.rt.group)} "${attrs.name}" is forbidden: ${why}`,
    );
  }

  /** The object after a webhook's JSON patch, back in the request's version and shape. */
  private async applyPatch(inv: Invocation, patch: unknown[], attrs: AdmissionAttributes): Promise<KubeObject> {
    const name = inv.hook.name;
    const current = attrs.object;
    if (!inv.object || !current)
      throw errors.internal(
        `admission webhook "${name}" attempted to modify the object, which is not supported for this operation`,
      );
    let patched: unknown;
    try {
      patched = applyJsonPatch(inv.object, patch);
    } catch {
      throw errors.internal(`admission webhook "${name}" returned a JSON patch that cannot be applied to the object`);
    }
    if (!isPlainObject(patched))
      throw errors.internal(
        `admission webhook "${name}" returned a JSON patch that replaced the object with a non-object`,
      );
    const { rt } = attrs;
    if (attrs.subresource === 'scale' && rt.subresources.scale) return scaleToCandidate(rt, current, patched);
    const out = patched as KubeObject;
    if (!isPlainObject(out.metadata)) out.metadata = {};
    out.apiVersion = groupVersion(rt.group, inv.version);
    out.kind = rt.kind;
    if (inv.version === attrs.version) return out;
    const [back] = await this.host.convert(rt, [out], attrs.version);
    return back!;
  }
}

function exempt(attrs: AdmissionAttributes): boolean {
  return attrs.rt.group === 'admissionregistration.k8s.io' && EXEMPT.has(attrs.rt.plural);
}
