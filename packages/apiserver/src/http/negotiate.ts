// Response content negotiation the way kube-apiserver does it (k8s.io/apiserver handlers/negotiation with
// munnerz/goautoneg): Accept clauses sorted by q-value and specificity, each matched against the server's
// media types in its own order (JSON, YAML, protobuf), the first whose parameters the endpoint allows wins.
// `as=Table|PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1` asks for a transformed object. Nothing
// acceptable is a 406. An absent Accept (and a bare `application/json`, the common case) skips the parsing.
import { StatusError } from '../errors.ts';

export type OutputFormat = 'json' | 'yaml' | 'protobuf';
export type Conversion = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface Negotiated {
  format: OutputFormat;
  /** the meta.k8s.io kind the client asked the object to be turned into */
  convert?: Conversion;
  /** meta.k8s.io version of the conversion: v1 or v1beta1 */
  convertVersion?: string;
  /** indented JSON: `pretty=1` in the media type, `?pretty=true`, or a curl/Wget/browser User-Agent */
  pretty: boolean;
}

/** What an endpoint can produce beyond plain JSON and YAML. */
export interface EndpointCapabilities {
  /** the kind has a protobuf schema (built-in kinds; never custom resources) */
  protobuf: boolean;
  /** Table and PartialObjectMetadata conversions (resource endpoints); errors and discovery allow none */
  conversions: boolean;
}

export const MEDIA_TYPES: Record<OutputFormat, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: 'application/vnd.kubernetes.protobuf',
};
const SERVER_ORDER: OutputFormat[] = ['json', 'yaml', 'protobuf'];
/** formats with a watch stream encoding (YAML has none) */
const STREAMING: ReadonlySet<OutputFormat> = new Set(['json', 'protobuf']);

const PLAIN_JSON: Negotiated = Object.freeze({ format: 'json', pretty: false }) as Negotiated;
const PRETTY_JSON: Negotiated = Object.freeze({ format: 'json', pretty: true }) as Negotiated;

interface Clause {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

const trimSpaces = (s: string) => s.replace(/^ +| +$/g, '');

/** goautoneg.ParseAccept: only spaces are trimmed; malformed clauses are dropped; q that fails to parse is 0. */
export function parseAccept(header: string): Clause[] {
  const out: Clause[] = [];
  for (const rawPart of header.split(',')) {
    const part = trimSpaces(rawPart);
    const semi = part.indexOf(';');
    const range = semi >= 0 ? part.slice(0, semi) : part;
    const slash = range.indexOf('/');
    const type = trimSpaces(slash >= 0 ? range.slice(0, slash) : range);
    let subType: string;
    if (slash < 0) {
      if (type !== '*') continue;
      subType = '*';
    } else {
      const rest = range.slice(slash + 1);
      if (rest.includes('/')) continue;
      subType = trimSpaces(rest);
    }
    const clause: Clause = { type, subType, q: 1, params: new Map() };
    if (semi >= 0) {
      for (const param of part.slice(semi + 1).split(';')) {
        const eq = param.split('=');
        if (eq.length !== 2 || eq[1] === '') continue;
        const token = trimSpaces(eq[0]!);
        if (token === 'q') clause.q = goParseFloat(eq[1]!);
        else clause.params.set(token, trimSpaces(eq[1]!));
      }
    }
    out.push(clause);
  }
  // Go's sort.Sort on a short slice is an insertion sort with this (non-transitive) Less; mirror it exactly.
  const less = (a: Clause, b: Clause) =>
    a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subType !== '*' && b.subType === '*');
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j]!, out[j - 1]!); j--) [out[j], out[j - 1]] = [out[j - 1]!, out[j]!];
  }
  return out;
}

/** strconv.ParseFloat: decimal syntax, no surrounding spaces, 0 on error (q only orders the clauses). */
function goParseFloat(s: string): number {
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(s)) return Number(s);
  if (/^[+-]?inf(?:inity)?$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  return 0;
}

/** kube-apiserver's 406: the media types the endpoint serves (for watches, their `;stream=watch` forms). */
export function notAcceptable(stream = false): StatusError {
  const types = stream
    ? [...STREAMING].map((f) => `${MEDIA_TYPES[f]};stream=watch`)
    : SERVER_ORDER.map((f) => MEDIA_TYPES[f]);
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${types.join(', ')}`);
}

function isPrettyRequest(userAgent: string | undefined, query: string | undefined): boolean {
  if (query?.includes('pretty')) {
    const v = new URLSearchParams(query).get('pretty');
    if (v) return v === '1' || v === 't' || v === 'T' || v === 'true' || v === 'TRUE' || v === 'True';
  }
  return (
    userAgent !== undefined &&
    (userAgent.startsWith('curl') || userAgent.startsWith('Wget') || userAgent.startsWith('Mozilla/5.0'))
  );
}

/**
 * The response format for a request. Throws the 406 when no clause is acceptable. `stream` negotiates a
 * watch: the winning clause must have a stream encoding (a YAML winner is a 406, not a fall-through).
 */
export function negotiateOutput(
  accept: string | undefined,
  caps: EndpointCapabilities,
  opts: { userAgent?: string; query?: string; stream?: boolean } = {},
): Negotiated {
  const pretty = !opts.stream && isPrettyRequest(opts.userAgent, opts.query);
  if (!accept || accept === 'application/json') return pretty ? PRETTY_JSON : PLAIN_JSON;
  const chosen = choose(parseAccept(accept), caps);
  if (!chosen) throw notAcceptable(opts.stream);
  if (opts.stream && !STREAMING.has(chosen.format)) throw notAcceptable(true);
  if (chosen.format === 'json' && (pretty || chosen.pretty)) chosen.pretty = true;
  else chosen.pretty = false;
  return chosen;
}

function choose(clauses: Clause[], caps: EndpointCapabilities): Negotiated | undefined {
  for (const c of clauses) {
    for (const format of SERVER_ORDER) {
      const [type, subType] = MEDIA_TYPES[format].split('/') as [string, string];
      const matches =
        (c.type === type && (c.subType === subType || c.subType === '*')) || (c.type === '*' && c.subType === '*');
      if (!matches) continue;
      const accepted = acceptClause(c, format, caps);
      if (accepted) return accepted;
    }
  }
  return undefined;
}

/** acceptMediaTypeOptions with the resource endpoint's AllowsMediaTypeTransform, or undefined to skip. */
function acceptClause(c: Clause, format: OutputFormat, caps: EndpointCapabilities): Negotiated | undefined {
  let kind: string | undefined;
  let group: string | undefined;
  let version: string | undefined;
  let pretty = false;
  for (const [k, v] of c.params) {
    if (k === 'as') kind = v;
    else if (k === 'g') group = v;
    else if (k === 'v') version = v;
    else if (k === 'stream') {
      if (v && (!STREAMING.has(format) || v !== 'watch')) return undefined;
    } else if (k === 'sv') {
      if (v) return undefined;
    } else if (k === 'pretty') pretty = v === '1';
  }
  const converting = kind !== undefined || group !== undefined || version !== undefined;
  if (!converting) {
    // custom resources have no protobuf form (their StandardSerializers are JSON and YAML)
    if (format === 'protobuf' && !caps.protobuf) return undefined;
    return { format, pretty };
  }
  if (!caps.conversions || group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
  if (kind === 'Table') {
    if (format === 'protobuf') return undefined;
  } else if (kind !== 'PartialObjectMetadata' && kind !== 'PartialObjectMetadataList') return undefined;
  return { format, pretty, convert: kind, convertVersion: version };
}

/** Error responses: any media type, no conversions (DefaultEndpointRestrictions); undefined when none fits. */
export function negotiateErrorOutput(
  accept: string | undefined,
  userAgent: string | undefined,
  query: string | undefined,
): Negotiated | undefined {
  try {
    return negotiateOutput(accept, { protobuf: true, conversions: false }, { userAgent, query });
  } catch {
    return undefined;
  }
}
