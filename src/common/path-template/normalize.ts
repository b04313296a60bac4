/**
 * docs/aim.md's route-path normalisation: split on `/` (collapsing `//`), lowercase and RFC 3986 percent-encode each
 * segment, drop the trailing `/`, and cap the result at 200 characters. Everything but RFC 3986 unreserved
 * characters is encoded, so a rendered value can never add a query, fragment or extra path segment.
 */

export const MAX_ROUTE_PATH_LENGTH = 200;

export type NormalizeResult = { ok: true; path: string } | { ok: false; message: string };

export function normalizeRoutePath(raw: string): NormalizeResult {
  const segments = raw.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) {
    return { ok: false, message: 'path renders to "/" (empty), which would route every request of the gateway' };
  }
  const encoded: string[] = [];
  for (const segment of segments) {
    // `.` and `..` are unreserved yet mean "this/parent directory"; Gateway API rejects them in HTTPRoute paths.
    if (segment === '.' || segment === '..') {
      return { ok: false, message: `path segment ${JSON.stringify(segment)} is not allowed (dot segments)` };
    }
    // NFC first so canonically equal text (é vs e + U+0301) yields one path.
    encoded.push(encodeSegment(segment.normalize('NFC').toLowerCase()));
  }
  const path = `/${encoded.join('/')}`;
  if (path.length > MAX_ROUTE_PATH_LENGTH) {
    return {
      ok: false,
      message: `path is ${path.length} characters after encoding, more than the maximum of ${MAX_ROUTE_PATH_LENGTH}`,
    };
  }
  return { ok: true, path };
}

/** Percent-encodes a segment's UTF-8 bytes except RFC 3986 unreserved characters (ALPHA DIGIT - . _ ~). */
export function encodeSegment(segment: string): string {
  // encodeURIComponent keeps !'()* too; they are sub-delims, so encode them for a single canonical form.
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
