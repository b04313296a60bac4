// kube-apiserver's GuaranteedUpdate: an update or patch is computed against the stored object and, when
// another write lands while it waits (admission webhooks, conversion), computed again against the new one.
// A client therefore gets 409 only from its own precondition (a resourceVersion in the body, the patch or
// the apply configuration), which each attempt checks again against the object it works on.
import type { RequestContext } from '../objects/context.ts';
import { ObjectChangedMeanwhile } from '../objects/write-path.ts';

/**
 * Attempts before giving up with the 409. Each attempt yields to the event loop (admission awaits), so other
 * writers make progress; only a writer that loses this many races in a row (a pathological hot object)
 * sees the conflict.
 */
const MAX_ATTEMPTS = 1000;

/** Runs `attempt` until it does not fail on an object that changed meanwhile; each attempt re-reads the object. */
export async function guaranteedUpdate<T>(ctx: RequestContext, attempt: () => Promise<T>): Promise<T> {
  // warnings an attempt raised are raised again by the next one (decoding, admission): keep one attempt's
  const warningsBefore = ctx.warnings.length;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof ObjectChangedMeanwhile) || n >= MAX_ATTEMPTS) throw e;
      ctx.warnings.length = warningsBefore;
    }
  }
}
