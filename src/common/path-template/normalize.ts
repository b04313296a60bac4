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
    // `.` and `..` are unreserved yet mean "this/parent directory"; Gateway API rejects them in HTTPRoute paths
    // (percent-encoded ones too: a proxy may decode them).
    if (isDotSegment(segment)) {
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

const PERCENT_ESCAPE = /%[0-9a-fA-F]{2}/g;

function isDotSegment(segment: string): boolean {
  const decoded = segment.replace(PERCENT_ESCAPE, (e) => String.fromCharCode(Number.parseInt(e.slice(1), 16)));
  return decoded === '.' || decoded === '..';
}

/**
 * Percent-encodes a segment's UTF-8 bytes except RFC 3986 unreserved characters (ALPHA DIGIT - . _ ~). A
 * well-formed escape already in the value (`%2F` in a label) is kept, with upper-case hex, rather than encoded
 * a second time (`%252F`); a `%` not followed by two hex digits is encoded (`%25`).
 */
export function encodeSegment(segment: string): string {
  let out = '';
  let cursor = 0;
  for (const m of segment.matchAll(PERCENT_ESCAPE)) {
    out += encodeText(segment.slice(cursor, m.index)) + m[0].toUpperCase();
    cursor = m.index + m[0].length;
  }
  return out + encodeText(segment.slice(cursor));
}

function encodeText(text: string): string {
  // encodeURIComponent keeps !'()* too; they are sub-delims, so encode them for a single canonical form.
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
