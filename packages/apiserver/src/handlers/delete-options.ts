// DeleteOptions as kube-apiserver reads them: from the body (type-checked field by field) and the query
// (propagationPolicy, gracePeriodSeconds, dryRun), with kube's messages for unsupported values.
import { errors } from '../errors.ts';
import { decodeBody, readBody } from '../http/body.ts';
import type { DeleteOptions } from '../objects/context.ts';
import { isPlainObject } from '../objects/meta.ts';
import { intParam } from './params.ts';
import type { ResourceRequest } from './request.ts';

export async function readDeleteOptions(r: ResourceRequest): Promise<DeleteOptions | undefined> {
  const buf = await readBody(r.req);
  const opts: DeleteOptions = {};
  if (buf.length > 0 && buf.toString('utf8').trim() !== '') {
    const body = decodeBody(buf, r.req.headers['content-type']);
    if (!isPlainObject(body)) throw errors.badRequest('DeleteOptions must be a JSON object');
    checkDeleteOptions(body);
    Object.assign(opts, body);
  }
  const q = r.query;
  const pp = q.get('propagationPolicy');
  if (pp) opts.propagationPolicy = pp as DeleteOptions['propagationPolicy'];
  const grace = intParam(q, 'gracePeriodSeconds');
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((v) => v !== 'All')) {
    throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [
      {
        field: 'dryRun',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: []string{${dryRun.map((v) => JSON.stringify(v)).join(', ')}}: supported values: "All"`,
      },
    ]);
  }
  if (opts.propagationPolicy && !['Background', 'Foreground', 'Orphan'].includes(opts.propagationPolicy)) {
    throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [
      {
        field: 'propagationPolicy',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
      },
    ]);
  }
  return opts;
}

/** Type checks a decoded DeleteOptions body (kube rejects mistyped fields when decoding). */
function checkDeleteOptions(body: Record<string, unknown>): void {
  const bad = (field: string, want: string) => errors.badRequest(`DeleteOptions.${field} must be ${want}`);
  if (body.dryRun !== undefined && (!Array.isArray(body.dryRun) || !body.dryRun.every((v) => typeof v === 'string')))
    throw bad('dryRun', 'a list of strings');
  if (
    body.gracePeriodSeconds !== undefined &&
    body.gracePeriodSeconds !== null &&
    !Number.isInteger(body.gracePeriodSeconds)
  )
    throw bad('gracePeriodSeconds', 'an integer');
  if (
    body.propagationPolicy !== undefined &&
    body.propagationPolicy !== null &&
    typeof body.propagationPolicy !== 'string'
  )
    throw bad('propagationPolicy', 'a string');
  if (
    body.orphanDependents !== undefined &&
    body.orphanDependents !== null &&
    typeof body.orphanDependents !== 'boolean'
  )
    throw bad('orphanDependents', 'a boolean');
  if (body.preconditions !== undefined && body.preconditions !== null) {
    if (!isPlainObject(body.preconditions)) throw bad('preconditions', 'an object');
    for (const k of ['uid', 'resourceVersion']) {
      const v = body.preconditions[k];
      if (v !== undefined && v !== null && typeof v !== 'string') throw bad(`preconditions.${k}`, 'a string');
    }
  }
}
