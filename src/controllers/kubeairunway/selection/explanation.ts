// The shape of a provider-selection explanation (explain.ts): plain data with no imports, so the dashboard's
// browser code can share the type (src/cli/dashboard/types.ts) without pulling in the selection code.

export interface RuleOutcome {
  condition: string;
  priority: number;
  /** true/false as CEL evaluated it, or the error that made selection skip the rule */
  result: boolean | 'error';
  error?: string;
}

export interface ProviderOutcome {
  name: string;
  ready: boolean;
  readyReason?: string;
  compatible: boolean;
  compatibleReason?: string;
  rules: RuleOutcome[];
  /** the highest priority among the true rules, 0 when none is true */
  priority: number;
  chosen: boolean;
}

export interface SelectionExplanation {
  /** the provider in status.provider.name */
  selected?: string;
  /** status.provider.selectedReason as the controller wrote it */
  selectedReason?: string;
  /** explicit (spec.provider.name), sticky (kept from an earlier choice), auto (the CEL rules), or none yet */
  how: 'explicit' | 'sticky' | 'auto' | 'none';
  /** what the capability filter looked for */
  wanted: { engine?: string; gpu: boolean; mode: string };
  providers: ProviderOutcome[];
  /** what the rules pick today for this spec, ignoring an earlier (sticky) choice */
  wouldSelect?: string;
  message: string;
}
