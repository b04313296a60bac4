// The "send load" button of a VariantAutoscaling's page (docs/dashboard.md): what the dashboard server needs
// of whoever can send load. `modelplane dev` provides one (it runs the load generator against the simulated
// pods); against any other cluster there is none and the button is not shown. The server decides everything
// from the variant the page names: the Service, the model, the duration and the concurrency, never the body.
import type { KubeObject } from '@modelplane/runtime/meta';

export interface LoadRunner {
  /**
   * Starts a minute of load on the variant's Service; resolves when it started, with when it ends. Rejects
   * with a LoadRefusal when it cannot (a load already runs, no Service selects the target's pods).
   */
  start(va: KubeObject, key: string): Promise<{ until: number }>;
  /** when the load running on this variant ends, or undefined when none runs */
  runningUntil(key: string): number | undefined;
}

/** a refusal the person can act on, with the HTTP status that says which kind */
export class LoadRefusal extends Error {
  constructor(
    readonly status: 409 | 422,
    message: string,
  ) {
    super(message);
  }
}
