// Label selectors with the semantics of k8s.io/apimachinery/pkg/labels: the same lexer and recursive-descent
// parser (so `in`/`notin` are identifiers inside value lists, `()` means the empty value, `a===b` fails the
// same way), the same error strings, and the same normalised String() form (requirements sorted by key,
// set values sorted). Also the metav1.LabelSelector object form (LabelSelectorAsSelector).
import { goQuote } from '../validation/field-errors.ts';
import { Parser } from './label-parser.ts';
import {
  byteOrder,
  type LabelOperator,
  type LabelRequirement,
  LabelSelectorError,
  type Labels,
  newRequirement,
  requirementMatches,
  requirementString,
} from './label-requirement.ts';

export {
  type LabelOperator,
  type LabelRequirement,
  LabelSelectorError,
  type Labels,
  newRequirement,
  requirementMatches,
  requirementString,
} from './label-requirement.ts';

export class LabelSelector {
  private constructor(
    readonly requirements: readonly LabelRequirement[],
    /** labels.Nothing(): what a nil metav1.LabelSelector converts to */
    readonly matchesNothing: boolean,
  ) {}

  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    // kube sorts by key on every Add; a stable sort keeps same-key requirements in input order
    return new LabelSelector(
      [...requirements].sort((a, b) => byteOrder(a.key, b.key)),
      false,
    );
  }

  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  matches(labels: Labels): boolean {
    if (this.matchesNothing) return false;
    return this.requirements.every((r) => requirementMatches(r, labels));
  }

  /** True when the selector does not restrict anything (Nothing() is not empty). */
  empty(): boolean {
    return !this.matchesNothing && this.requirements.length === 0;
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }

  /** The single value `key` must have, when the selector pins it (=, == or a one-value `in`). */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (!r || (r.operator !== '=' && r.operator !== '==' && r.operator !== 'in') || r.values.length !== 1)
      return undefined;
    return r.values[0];
  }
}

/** labels.Parse. Throws LabelSelectorError with kube's message. An empty string selects everything. */
export function parseLabelSelector(selector: string): LabelSelector {
  return LabelSelector.of(new Parser(selector).parse());
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: null/undefined selects nothing, `{}` selects everything. matchLabels become
 * `=` requirements, matchExpressions keep their operator.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === null || selector === undefined) return LabelSelector.nothing();
  const matchLabels = Object.entries(selector.matchLabels ?? {});
  const exprs = selector.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = matchLabels.map(([k, v]) => newRequirement(k, '=', [v]));
  for (const expr of exprs) {
    const op = OBJECT_OPERATORS[expr.operator];
    if (!op)
      throw new LabelSelectorError(`${goQuote(String(expr.operator ?? ''))} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return LabelSelector.of(reqs);
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: LabelSelectorObject | null | undefined): string {
  try {
    return labelSelectorFromObject(selector).toString() || '<none>';
  } catch {
    return '<error>';
  }
}

/** labels.SelectorFromSet: every key must equal its value (no validation, like kube's). */
export function selectorFromSet(set: Readonly<Record<string, string>> | null | undefined): LabelSelector {
  return LabelSelector.of(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })));
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` for an empty map. */
export function formatLabels(labels: Readonly<Record<string, string>> | null | undefined): string {
  const pairs = Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort(byteOrder);
  return pairs.length > 0 ? pairs.join(',') : '<none>';
}
