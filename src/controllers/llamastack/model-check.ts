// A referenced ModelDeployment or AIMService counts only when it serves the models the config registers
// for it (docs/llamastack.md, "Ready means chat works"). The fetch phase asks the reference's endpoint for
// /v1/models once per change (the endpoint, the referenced object's version, the models expected) and
// again every recheck while the answer is not good; the decision (which model is missing, the condition)
// is pure and lives here beside it.
import type { LlamaStackDistribution } from '../../apis/llamastack/index.ts';
import { asError, asInfo, type ConditionManager } from '../../engine/index.ts';
import { providerId } from './config/index.ts';
import { getJson } from './server-health.ts';

/** what a reference's endpoint answered to GET /v1/models */
export type ModelListing = { reachable: true; models: string[] } | { reachable: false; message: string };

/** one reference's check, as the fetch phase made it */
export interface ModelCheck {
  providerId: string;
  /** the spec field that names the reference, e.g. spec.providers.inference[0].modelDeploymentRef */
  field: string;
  kind: 'ModelDeployment' | 'AIMService';
  name: string;
  /** the URL the config gives the provider (what the server will call) */
  url: string;
  /** model ids the config registers for this provider (none: any one model will do) */
  expected: string[];
  listing: ModelListing;
}

/** the most model ids kept from one answer: a provider listing more is not read further */
const MAX_MODELS = 1_000;

/** GET `<base>/models` (base ends in /v1); undefined base: nothing ready behind the Service; never throws */
export async function listModels(base: string | undefined): Promise<ModelListing> {
  if (!base) return { reachable: false, message: 'no ready endpoint behind its Service' };
  try {
    const body = (await getJson(base, '/models')) as { data?: unknown };
    if (!Array.isArray(body?.data)) return { reachable: false, message: 'GET /models: the answer has no data list' };
    const models = body.data
      .slice(0, MAX_MODELS)
      .flatMap((m) =>
        m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? [(m as { id: string }).id] : [],
      );
    return { reachable: true, models };
  } catch (err) {
    return { reachable: false, message: (err as Error).message };
  }
}

/**
 * The model ids the generated config registers per provider id: spec.resources.models, a model without a
 * provider going to the first inference provider of the spec (a referenced provider is always the user's,
 * and the user's list replaces the base's, so the base's models cannot land on it).
 */
export function expectedModels(spec: LlamaStackDistribution['spec']): Map<string, string[]> {
  const inference = spec.providers?.inference;
  const first = Array.isArray(inference) && inference[0] ? providerId(inference[0]) : undefined;
  const out = new Map<string, string[]>();
  for (const m of spec.resources?.models ?? []) {
    const p = m.provider ?? first;
    if (p) out.set(p, [...(out.get(p) ?? []), m.name]);
  }
  return out;
}

/** a listing that needs no second look: the endpoint answered with every expected model (or some model) */
export function listingGood(listing: ModelListing, expected: readonly string[]): boolean {
  return (
    listing.reachable &&
    (expected.length ? expected.every((m) => listing.models.includes(m)) : listing.models.length > 0)
  );
}

export interface ModelProblem {
  reason: 'ModelEndpointUnreachable' | 'ModelNotListed';
  message: string;
}

/** what is wrong with one check, naming the reference, the URL and what was missing; undefined: nothing */
export function modelProblem(c: ModelCheck): ModelProblem | undefined {
  const who = `${c.field}: ${c.kind} ${c.name} at ${c.url}`;
  if (!c.listing.reachable)
    return {
      reason: 'ModelEndpointUnreachable',
      message: `${who} did not answer GET /v1/models (${c.listing.message}); chat through provider ${c.providerId} cannot work until it does`,
    };
  if (listingGood(c.listing, c.expected)) return undefined;
  const listed = c.listing.models.length ? c.listing.models.slice(0, 10).join(', ') : 'no model';
  const missing = c.expected.filter((m) => !(c.listing as { models: string[] }).models.includes(m));
  return {
    reason: 'ModelNotListed',
    message: missing.length
      ? `${who} does not list model ${missing.map((m) => JSON.stringify(m)).join(', ')} in /v1/models (it lists ${listed}): fix spec.resources.models or the ${c.kind}'s model`
      : `${who} lists no model in /v1/models: wait for its model to load or check the ${c.kind}`,
  };
}

/**
 * ModelsAvailable: True when every referenced endpoint lists its models, False when one answers without
 * them, Unknown while some do not answer yet, naming every failing reference; absent when nothing was checked
 * (no reference, or the operator cannot reach Services). Returns the problem that keeps the object from Ready.
 */
export function setModelsAvailable(cm: ConditionManager, checks: readonly ModelCheck[]): ModelProblem | undefined {
  if (checks.length === 0) {
    cm.delete('ModelsAvailable');
    return undefined;
  }
  const problems = checks.flatMap((c) => modelProblem(c) ?? []);
  const message = problems.map((p) => p.message).join('; ');
  // an endpoint that answers without the model is a fault; one that does not answer yet (its pods are still
  // starting, as on every fresh start) is a wait: Unknown, said at info
  const notListed = problems.find((p) => p.reason === 'ModelNotListed');
  if (notListed) {
    cm.markFalse('ModelsAvailable', notListed.reason, message, asError());
    return notListed;
  }
  const [first] = problems;
  if (first) {
    cm.markUnknown('ModelsAvailable', first.reason, message, asInfo());
    return first;
  }
  const listed = checks.map((c) => `${c.kind} ${c.name} (${c.expected.length ? c.expected.join(', ') : 'a model'})`);
  cm.markTrue(
    'ModelsAvailable',
    'ModelsListed',
    `every referenced endpoint serves its models: ${listed.join('; ')}`,
    asInfo(),
  );
  return undefined;
}
