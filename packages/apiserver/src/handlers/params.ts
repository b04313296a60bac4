// Query-parameter decoding shared by the resource handlers, with kube-apiserver's error messages.
import { errors } from '../errors.ts';

/**
 * A boolean query parameter as kube-apiserver converts it (runtime.Convert_Slice_string_To_bool): the first
 * value, false only for "0", "f" or "false" in any case; anything else, even an empty value, is true.
 */
export function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && kubeBool(v);
}

export function kubeBool(v: string): boolean {
  const lower = v.toLowerCase();
  return !(v === '0' || lower === 'f' || lower === 'false');
}

/** An optional boolean (*bool): undefined when absent. */
export function optionalBoolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  return v === null ? undefined : kubeBool(v);
}

/** An integer query parameter: strconv.ParseInt(first value, 10, 64), its error text as the 400. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > 2n ** 63n - 1n || n < -(2n ** 63n))
    throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(n);
}

export interface ListOptions {
  limit?: number;
  timeoutSeconds?: number;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: string;
}

/**
 * The list/watch options kube-apiserver decodes from the query (a malformed number is a 400). Selectors are
 * parsed next (selectors.ts), then validateListOptions runs.
 */
export function decodeListOptions(q: URLSearchParams): ListOptions {
  const opts: ListOptions = { allowWatchBookmarks: boolParam(q, 'allowWatchBookmarks') };
  const limit = intParam(q, 'limit');
  if (limit !== undefined) opts.limit = limit;
  const timeout = intParam(q, 'timeoutSeconds');
  if (timeout !== undefined) opts.timeoutSeconds = timeout;
  const initial = optionalBoolParam(q, 'sendInitialEvents');
  if (initial !== undefined) opts.sendInitialEvents = initial;
  const match = q.get('resourceVersionMatch') ?? '';
  if (match) opts.resourceVersionMatch = match;
  return opts;
}

/**
 * ValidateListOptions (422 ListOptions.meta.k8s.io), then the resourceVersion as storage parses it (400).
 * WatchList is on, as in 1.32, so a watch may ask for initial events.
 */
export function validateListOptions(q: URLSearchParams, opts: ListOptions, watch: boolean): void {
  const match = opts.resourceVersionMatch ?? '';
  const initial = opts.sendInitialEvents;
  const rv = q.get('resourceVersion') ?? '';
  const cont = q.get('continue') ?? '';
  const problems: { field: string; reason: string; message: string }[] = [];
  const forbidden = (field: string, why: string) =>
    problems.push({ field, reason: 'FieldValueForbidden', message: `Forbidden: ${why}` });
  const notSupported = (value: string, supported: string[]) =>
    problems.push({
      field: 'resourceVersionMatch',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
    });
  if (watch) {
    if (initial !== undefined && match !== 'NotOlderThan')
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (match) {
      if (initial === undefined)
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        );
      if (match !== 'NotOlderThan') notSupported(match, ['NotOlderThan']);
      if (cont) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (match) {
      if (!rv)
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (cont) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (match !== 'Exact' && match !== 'NotOlderThan') notSupported(match, ['Exact', 'NotOlderThan', '']);
      if (match === 'Exact' && rv === '0')
        forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (initial !== undefined) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (problems.length) throw errors.invalid('ListOptions', 'meta.k8s.io', '', problems);
  rvParam(q);
}

/** resourceVersion for list/watch: a non-negative integer or empty */
export function rvParam(q: URLSearchParams): number | undefined {
  const v = q.get('resourceVersion');
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw errors.badRequest(`invalid resource version: "${v}"`);
  return Number(v);
}
