// The options of a write (CreateOptions, UpdateOptions, PatchOptions) decoded from the query and validated as
// kube-apiserver does: every problem in one 422 `<Kind>Options.meta.k8s.io "" is invalid`, with its messages.
import { errors, type StatusCause } from '../errors.ts';
import type { FieldValidation } from '../objects/context.ts';
import { kubeBool } from './params.ts';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

export interface WriteOptions {
  fieldManager: string;
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** apply only: take over conflicting fields */
  force: boolean;
}

const FIELD_MANAGER_MAX = 128;
/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's %#U for a rune that is not printable */
const goRune = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

export function writeOptions(
  q: URLSearchParams,
  kind: OptionsKind,
  userAgent: string | undefined,
  patchType?: string,
): WriteOptions {
  const causes: StatusCause[] = [];
  const fieldManager = q.get('fieldManager') ?? '';
  const apply = patchType === 'application/apply-patch+yaml';
  if (kind === 'PatchOptions') {
    if (!apply && q.has('force'))
      causes.push({
        field: 'force',
        reason: 'FieldValueForbidden',
        message: 'Forbidden: may not be specified for non-apply patch',
      });
    if (apply && fieldManager === '')
      causes.push({
        field: 'fieldManager',
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
      });
  }
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX)
    causes.push({
      field: 'fieldManager',
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${FIELD_MANAGER_MAX} bytes`,
    });
  let at = 0;
  // (visible ASCII, the usual case, needs no look at each character)
  for (const c of /^[\x20-\x7e]*$/.test(fieldManager) ? '' : fieldManager) {
    if (!PRINTABLE.test(c))
      causes.push({
        field: 'fieldManager',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character ${goRune(c)} (at position ${at})`,
      });
    at += Buffer.byteLength(c);
  }
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((v) => v !== 'All')) {
    causes.push({
      field: 'dryRun',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: []string{${dryRun.map((v) => JSON.stringify(v)).join(', ')}}: supported values: "All"`,
    });
  }
  const validation = q.get('fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(validation)) {
    causes.push({
      field: 'fieldValidation',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(validation)}: supported values: "", "Ignore", "Strict", "Warn"`,
    });
  }
  if (causes.length) throw errors.invalid(kind, 'meta.k8s.io', '', causes);
  return {
    fieldManager: fieldManager || defaultFieldManager(userAgent),
    dryRun: dryRun.length > 0,
    fieldValidation: (validation || 'Warn') as FieldValidation,
    force: apply && q.has('force') && kubeBool(q.get('force')!),
  };
}

/** kube-apiserver derives a manager from the User-Agent's program name when none is given */
function defaultFieldManager(userAgent: string | undefined): string {
  const prog = (userAgent ?? 'unknown').split('/')[0]!.trim();
  return prog.slice(0, FIELD_MANAGER_MAX) || 'unknown';
}
