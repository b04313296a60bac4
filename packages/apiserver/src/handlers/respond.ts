// Writing a handler's answer in the format the client negotiated: the object itself (or its Table /
// PartialObjectMetadata form), or another body such as Scale or Status.
import { objectJsonIfCached } from '../http/object-json.ts';
import { warningHeader, writeNegotiated } from '../http/respond.ts';
import type { KubeObject } from '../types.ts';
import type { ResourceRequest } from './request.ts';
import { convertObject } from './table.ts';

/** Writes the object (or Table/PartialObjectMetadata) in the shape the client asked for. */
export function respondObject(r: ResourceRequest, code: number, obj: KubeObject, warnings: string[] = []): number {
  const headers: Record<string, string | string[]> = {};
  if (warnings.length) headers.Warning = warningHeader(warnings);
  // (a text already shared by watchers and lists is reused; a write's response alone does not keep one)
  const body = r.out.convert ? convertObject(r, obj) : r.out.format === 'json' ? objectJsonIfCached(obj) : obj;
  writeNegotiated(r.res, r.out, code, body, headers);
  return code;
}

/** A body that is not the resource's object (Scale, Status): written in the negotiated format, never converted. */
export function respondOther(
  r: ResourceRequest,
  code: number,
  body: Record<string, unknown>,
  warnings: string[] = [],
): number {
  writeNegotiated(r.res, r.out, code, body, warnings.length ? { Warning: warningHeader(warnings) } : {});
  return code;
}
