// The request generator: endpoint family, path, method, query, headers and body of each fuzz request,
// drawn from the seeded PRNG alone (never from responses), so a seed reproduces the same sequence.
import {
  type Body,
  CONTENT_TYPES,
  deleteOptionsBody,
  hostileBody,
  ODD_CONTENT_TYPES,
  objectBody,
  patchBody,
} from './bodies.ts';
import {
  FIXTURE_NAME,
  FUZZ_CRD_NAME,
  FUZZ_GROUP,
  FUZZ_NAMESPACE,
  GADGET_RULE_VIOLATIONS,
  validObject,
} from './corpus.ts';
import type { Prng } from './prng.ts';
import { probe } from './probes.ts';
import type { FuzzRequest, Resource } from './types.ts';
import {
  BROKEN_FIELD_SELECTORS,
  BROKEN_LABEL_SELECTORS,
  INVALID_NAMES,
  VALID_FIELD_SELECTORS,
  VALID_LABEL_SELECTORS,
} from './values.ts';

/** a served resource as discovery describes it */
// methods Node's HTTP parser knows, then two it does not (a Go server answers those with 405 too)
const ODD_METHODS = [
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'PURGE',
  'LOCK',
  'REPORT',
  'SEARCH',
  'COPY',
  'MOVE',
  'MKCOL',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'FUZZ',
  'get',
];
const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const VICTIMS = `labelSelector=${encodeURIComponent('fuzz.modelplane.dev/victim=true')}`;
const base = (r: Resource) => (r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`);
const apiVersionOf = (r: Resource) => (r.group ? `${r.group}/${r.version}` : r.version);

/** The fixture name a kind's objects use (CRD names must be `<plural>.<group>`). */
export function fixtureName(r: Resource): string {
  return r.plural === 'customresourcedefinitions' ? `widgets.${FUZZ_GROUP}` : FIXTURE_NAME;
}

export class RequestGenerator {
  constructor(
    private readonly p: Prng,
    private readonly resources: Resource[],
  ) {}

  next(): FuzzRequest {
    const p = this.p;
    return p.weighted<() => FuzzRequest>([
      [6, () => this.discovery()],
      [26, () => this.collection(p.pick(this.resources))],
      [34, () => this.item(p.pick(this.resources))],
      [14, () => this.subresource(p.pick(this.resources))],
      [5, () => this.watch(p.pick(this.resources))],
      [5, () => this.garbageUrl()],
      [16, () => this.crdFocus()],
      [5, () => probe(p, this.resources)],
    ])();
  }

  /** extra weight on the fuzz CRD's custom resources, where schema validation and CEL run */
  private crdFocus(): FuzzRequest {
    const gadgets = this.resources.find((r) => r.group === FUZZ_GROUP && r.plural === 'gadgets');
    if (!gadgets) return this.item(this.p.pick(this.resources));
    return this.p.weighted<() => FuzzRequest>([
      [3, () => this.item(gadgets)],
      [2, () => this.collection(gadgets)],
      [1, () => this.subresource(gadgets)],
      [1, () => this.celProbe(gadgets)],
    ])();
  }

  /** a schema-valid Gadget that breaks one CEL rule: a precise 422, never an acceptance or a 5xx */
  private celProbe(gadgets: Resource): FuzzRequest {
    const p = this.p;
    const v = p.pick(GADGET_RULE_VIOLATIONS);
    const name = v.update ? FIXTURE_NAME : `fz-cel-${p.string(8)}`;
    const obj = validObject(gadgets, name, FUZZ_NAMESPACE);
    v.apply(obj.spec as Record<string, unknown>);
    const col = this.collectionPath(gadgets, FUZZ_NAMESPACE);
    if (v.update) {
      // A merge patch of just the changed field: a PUT could land on a fixture an earlier request emptied (no
      // old spec, so rightly no transition check). Whatever state the fixture is in, this patch is a 422
      // (the rule, or the required fields it lacks), or a 404 when an earlier request deleted the fixture.
      return {
        family: 'cel gadgets',
        method: 'PATCH',
        path: `${col}/${name}`,
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: Buffer.from(
          JSON.stringify({
            spec: { image: { repository: (obj.spec as { image: { repository: string } }).image.repository } },
          }),
        ),
        note: `breaks the CEL rule "${v.rule}"`,
        expect: [422, 404],
      };
    }
    return {
      family: 'cel gadgets',
      method: 'POST',
      path: col,
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from(JSON.stringify(obj)),
      note: `breaks the CEL rule "${v.rule}"`,
      expect: [422],
    };
  }

  private namespace(r: Resource): string | undefined {
    const p = this.p;
    if (!r.namespaced) return p.chance(0.05) ? FUZZ_NAMESPACE : undefined; // a namespace on a cluster-scoped path is a 404
    return p.weighted<() => string | undefined>([
      [84, () => FUZZ_NAMESPACE],
      [5, () => 'default'],
      [4, () => 'does-not-exist'],
      [4, () => p.pick(INVALID_NAMES)],
      [3, () => undefined],
    ])();
  }

  /**
   * The namespace for an object path. Dot-segment names go to the expendable `fixture` namespace: a server
   * that resolves `…/configmaps/..` as a path would otherwise delete the fuzz namespace itself (that bug
   * is still reported, by the 400 these requests expect).
   */
  private namespaceFor(r: Resource, name: string): string | undefined {
    const ns = this.namespace(r);
    return r.namespaced && ns === FUZZ_NAMESPACE && (name === '.' || name === '..') ? FIXTURE_NAME : ns;
  }

  private collectionPath(r: Resource, ns: string | undefined): string {
    return ns !== undefined ? `${base(r)}/namespaces/${encodeURIComponent(ns)}/${r.plural}` : `${base(r)}/${r.plural}`;
  }

  private name(r: Resource): string {
    const p = this.p;
    return p.weighted<() => string>([
      [60, () => fixtureName(r)],
      [
        28,
        () =>
          r.plural === 'customresourcedefinitions'
            ? `fz${p.string(6, 'abcdefghij')}s.${FUZZ_GROUP}`
            : `fz-${p.string(p.range(1, 12))}`,
      ],
      [12, () => p.pick(INVALID_NAMES)],
    ])();
  }

  private valid(r: Resource, name: string, ns: string | undefined): Record<string, unknown> {
    return validObject(r, name, ns);
  }

  private other(): Record<string, unknown> {
    const o = this.p.pick(this.resources);
    return validObject(o, FIXTURE_NAME, FUZZ_NAMESPACE);
  }

  private method(weights: [number, string][]): string {
    return this.p.weighted([...weights, [7, this.p.pick(ODD_METHODS)] as [number, string]]);
  }

  private accept(): Record<string, string> {
    const p = this.p;
    const accept = p.weighted<string | undefined>([
      [70, undefined],
      [8, 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json'],
      [4, 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json'],
      [4, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io'],
      [4, 'application/vnd.kubernetes.protobuf'],
      [3, 'application/yaml'],
      [
        4,
        p.pick([
          '*/*',
          ';;;',
          'text/html',
          'application/json;as=Bogus;g=meta.k8s.io',
          'application/json;as=Table',
          '\u00e9',
        ]),
      ],
      [3, AGGREGATED_ACCEPT],
    ]);
    return accept === undefined ? {} : { Accept: accept };
  }

  private writeQuery(patch: boolean, apply: boolean): string[] {
    const p = this.p;
    const q: string[] = [];
    if (p.chance(0.12)) q.push(`dryRun=${p.pick(['All', 'All', 'All', 'None', 'all', ''])}`);
    if (apply || p.chance(0.2)) {
      q.push(
        `fieldManager=${encodeURIComponent(
          p.weighted<string>([
            [20, 'fuzzer'],
            [1, 'm'.repeat(129)],
            [1, 'tab\there'],
            [1, ''],
            [1, 'ünï'],
          ]),
        )}`,
      );
    }
    if (p.chance(0.15))
      q.push(`fieldValidation=${p.pick(['Strict', 'Strict', 'Warn', 'Ignore', 'strict', 'Bogus', ''])}`);
    if (patch && (apply ? p.chance(0.3) : p.chance(0.05))) q.push(`force=${p.pick(['true', 'false', 'yes'])}`);
    if (p.chance(0.05)) q.push(p.pick(['pretty=true', 'pretty=maybe', 'unknown=1', '=', '&&', 'a=%zz']));
    return q;
  }

  private listQuery(): string[] {
    const p = this.p;
    const q: string[] = [];
    if (p.chance(0.3))
      q.push(
        `labelSelector=${encodeURIComponent(p.chance(0.5) ? p.pick(VALID_LABEL_SELECTORS) : p.pick(BROKEN_LABEL_SELECTORS))}`,
      );
    if (p.chance(0.2))
      q.push(
        `fieldSelector=${encodeURIComponent(p.chance(0.5) ? p.pick(VALID_FIELD_SELECTORS) : p.pick(BROKEN_FIELD_SELECTORS))}`,
      );
    if (p.chance(0.2)) q.push(`limit=${p.pick(['1', '2', '500', '0', '-1', 'abc', '99999999999999999999', '1.5'])}`);
    if (p.chance(0.1))
      q.push(
        `continue=${encodeURIComponent(p.pick(['garbage', 'eyJydiI6MX0', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiXHUwMDAwIn0', '', '%%%', 'a'.repeat(2000)]))}`,
      );
    if (p.chance(0.15)) q.push(`resourceVersion=${p.pick(['0', '1', '', 'abc', '-1', '999999999999', '1.5'])}`);
    if (p.chance(0.1)) q.push(`resourceVersionMatch=${p.pick(['NotOlderThan', 'Exact', 'Bogus', ''])}`);
    if (p.chance(0.05)) q.push(`includeObject=${p.pick(['None', 'Metadata', 'Object', 'Bogus'])}`);
    if (p.chance(0.05)) q.push(`timeoutSeconds=${p.pick(['1', 'x', '-5'])}`);
    return q;
  }

  private withQuery(path: string, q: string[]): string {
    if (!q.length) return path;
    return `${path}${path.includes('?') ? '&' : '?'}${q.join('&')}`;
  }

  /** the headers and body of a write with the given method */
  private write(
    method: string,
    valid: Record<string, unknown>,
  ): { headers: Record<string, string>; body?: Body; q: string[] } {
    const p = this.p;
    if (method === 'PATCH') {
      const ct = p.weighted<string>([
        [25, CONTENT_TYPES.merge],
        [25, CONTENT_TYPES.jsonPatch],
        [20, CONTENT_TYPES.strategic],
        [20, CONTENT_TYPES.apply],
        [3, CONTENT_TYPES.json],
        [7, p.pick(ODD_CONTENT_TYPES)],
      ]);
      const apply = ct.startsWith('application/apply-patch');
      return {
        headers: ct ? { 'Content-Type': ct } : {},
        body: patchBody(p, valid, ct),
        q: this.writeQuery(true, apply),
      };
    }
    if (method === 'POST' || method === 'PUT') {
      const ct = p.weighted<string>([
        [55, CONTENT_TYPES.json],
        [20, CONTENT_TYPES.yaml],
        [10, CONTENT_TYPES.merge],
        [15, p.pick(ODD_CONTENT_TYPES)],
      ]);
      return {
        headers: ct ? { 'Content-Type': ct } : {},
        body: objectBody(p, valid, this.other(), ct),
        q: this.writeQuery(false, false),
      };
    }
    if (method === 'DELETE') {
      const q: string[] = [];
      if (p.chance(0.2))
        q.push(
          p.pick([
            'gracePeriodSeconds=0',
            'gracePeriodSeconds=-1',
            'gracePeriodSeconds=abc',
            'propagationPolicy=Foreground',
            'propagationPolicy=Bogus',
            'orphanDependents=true',
            'dryRun=All',
            'dryRun=x',
          ]),
        );
      if (p.chance(0.4))
        return {
          headers: { 'Content-Type': p.chance(0.8) ? CONTENT_TYPES.json : p.pick(ODD_CONTENT_TYPES) },
          body: deleteOptionsBody(p),
          q,
        };
      return { headers: {}, q };
    }
    // GET, HEAD and odd methods: mostly no body, sometimes a hostile one
    if (p.chance(0.1)) return { headers: { 'Content-Type': CONTENT_TYPES.json }, body: hostileBody(p, valid), q: [] };
    return { headers: {}, q: [] };
  }

  private build(
    family: string,
    method: string,
    path: string,
    w: { headers: Record<string, string>; body?: Body; q: string[] },
    extraQ: string[] = [],
    note = '',
  ): FuzzRequest {
    const q = [...w.q, ...extraQ];
    // Any DELETE may turn into a deletecollection (an empty name, a trailing slash, a garbage path): keep it to
    // the fuzzer's own victims so the fixtures, the fuzz namespace and the fuzz CRD survive the run.
    if (method === 'DELETE' && !q.some((x) => x.startsWith('labelSelector=')) && !path.includes('labelSelector='))
      q.push(VICTIMS);
    const fr: FuzzRequest = {
      family,
      method,
      path: encodeNonAscii(this.withQuery(path, q)),
      headers: { ...this.accept(), ...w.headers },
      note: [note, w.body?.note].filter(Boolean).join('; '),
    };
    // Node's parser refuses these methods and raw non-ASCII paths and hangs up at once, so a large body only
    // races the client's writes against the closing socket (Go would parse them and answer)
    const unparseable = method === 'FUZZ' || method === 'get' || /[\x80-\xff]/.test(fr.path);
    if (w.body && !(unparseable && w.body.bytes.length > 64 * 1024)) {
      fr.body = w.body.bytes;
      if (w.body.chunked) fr.chunked = true;
    }
    return fr;
  }

  discovery(): FuzzRequest {
    const p = this.p;
    const r = p.pick(this.resources);
    const path = p.pick([
      '/api',
      '/api/v1',
      '/apis',
      `/apis/${r.group || 'apps'}`,
      `/apis/${r.group || 'apps'}/${r.version}`,
      '/version',
      '/healthz',
      '/livez',
      '/readyz',
      '/readyz/ping',
      '/healthz/etcd',
      '/openapi/v3',
      `/openapi/v3/${r.group ? `apis/${r.group}` : 'api'}/${r.version}`,
      `/openapi/v3/apis/${FUZZ_GROUP}/v1`,
      '/openapi/v2',
      '/metrics',
      '/apis/nope',
      '/apis/nope/v1',
      '/api/v2',
      '/',
      '/apis/apps/v99',
      '/.well-known/openid-configuration',
    ]);
    const method = this.method([
      [80, 'GET'],
      [5, 'HEAD'],
      [4, 'POST'],
      [2, 'PUT'],
      [2, 'DELETE'],
    ]);
    const w =
      method === 'GET' || method === 'HEAD'
        ? { headers: {}, q: [] as string[] }
        : this.write(method, this.valid(r, 'x', FUZZ_NAMESPACE));
    const headers: Record<string, string> = p.chance(0.4) ? { Accept: AGGREGATED_ACCEPT } : {};
    const extra =
      path.startsWith('/openapi/v3/') && p.chance(0.3) ? [`hash=${p.pick(['abc', '', 'x'.repeat(100)])}`] : [];
    const fr = this.build('discovery', method, path, { ...w, headers: { ...w.headers, ...headers } }, extra);
    return fr;
  }

  collection(r: Resource): FuzzRequest {
    const p = this.p;
    const ns = this.namespace(r);
    const path = this.collectionPath(r, ns);
    const method = this.method([
      [45, 'GET'],
      [30, 'POST'],
      [5, 'DELETE'],
      [5, 'PUT'],
      [5, 'PATCH'],
      [3, 'HEAD'],
    ]);
    const name = this.name(r);
    const valid = this.valid(r, name, ns);
    // half of the creates are victims a later deletecollection may take
    if (method === 'POST' && p.chance(0.5))
      (valid.metadata as Record<string, Record<string, string>>).labels!['fuzz.modelplane.dev/victim'] = 'true';
    const w = this.write(method, valid);
    let extra: string[] = [];
    if (method === 'GET' || method === 'HEAD') extra = this.listQuery();
    const broken = extra.some(
      (q) =>
        BROKEN_LABEL_SELECTORS.some((b) => q === `labelSelector=${encodeURIComponent(b)}`) ||
        BROKEN_FIELD_SELECTORS.some((b) => q === `fieldSelector=${encodeURIComponent(b)}`),
    );
    // a plain list with an unparseable selector is a 400 whatever else the query holds (selectors are parsed first)
    // (a namespace with a slash, even percent-encoded, splits the path: that is a 404 before any selector)
    const expect =
      method === 'GET' && broken && r.verbs.includes('list') && (r.namespaced || ns === undefined) && !ns?.includes('/')
        ? [400]
        : undefined;
    if (method === 'DELETE') {
      // deletecollection mostly targets objects the fuzzer created, so fixtures survive
      extra = [p.chance(0.8) ? VICTIMS : `labelSelector=${encodeURIComponent(p.pick(BROKEN_LABEL_SELECTORS))}`];
    }
    const fr = this.build(`collection ${r.plural}`, method, path, w, extra);
    if (expect && !fr.headers.Accept) fr.expect = expect;
    return fr;
  }

  item(r: Resource): FuzzRequest {
    const name = this.name(r);
    const ns = this.namespaceFor(r, name);
    const rawName = this.p.chance(0.05);
    const method = this.method([
      [25, 'GET'],
      [20, 'PUT'],
      [30, 'PATCH'],
      [10, 'DELETE'],
      [5, 'POST'],
      [3, 'HEAD'],
    ]);
    // A raw non-ASCII name makes Node's parser refuse the request line; the 400 that src/index.ts then
    // writes carries a body even for HEAD, which breaks the client (known, reported): no raw names on HEAD.
    const raw = rawName && method !== 'HEAD';
    const path = `${this.collectionPath(r, ns)}/${raw ? name : encodeURIComponent(name)}`;
    const w = this.write(method, this.valid(r, name, ns));
    const fr = this.build(`item ${r.plural}`, method, path, w);
    // kube-apiserver refuses "." and ".." as names (400) before reading the body; they must never be
    // resolved as path dot-segments (DELETE …/configmaps/.. would address the namespace)
    // (a namespace with a slash, even percent-encoded, splits the path like any other slash: a 404)
    const scopeOk = r.namespaced
      ? ns !== undefined && ns !== '.' && ns !== '..' && !ns.includes('/')
      : ns === undefined;
    // (413 and 415 too: this server checks the body's size and media type before it looks at the name)
    const verb = { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method];
    // (and a 406 first when the Accept header asks for something the endpoint cannot produce, a 422 when the
    // write's options are invalid: both are decided before the name reaches storage)
    if ((name === '.' || name === '..') && scopeOk && verb && r.verbs.includes(verb)) {
      fr.expect = [400, 413, 415, ...(fr.headers.Accept ? [406] : []), ...(verb !== 'get' ? [422] : [])];
    }
    return fr;
  }

  subresource(r: Resource): FuzzRequest {
    const p = this.p;
    const name = p.chance(0.8) ? fixtureName(r) : this.name(r);
    const ns = this.namespaceFor(r, name);
    const sub = p.weighted<string>([
      [8, r.subresources.length ? p.pick(r.subresources) : 'status'],
      [2, 'status'],
      [1, 'scale'],
      [1, p.pick(['log', 'token', 'exec', 'proxy', 'finalize', 'bogus', 'status/extra'])],
    ]);
    const method = this.method([
      [35, 'GET'],
      [25, 'PUT'],
      [30, 'PATCH'],
      [5, 'POST'],
      [5, 'DELETE'],
    ]);
    const valid =
      sub === 'scale' ? scaleObject(p, r, name, ns) : sub === 'token' ? tokenRequest(p) : this.valid(r, name, ns);
    if (sub === 'status' && valid.status === undefined)
      valid.status = {
        phase: p.pick(['Ready', 'Pending', 'Bogus']),
        replicas: p.int(5),
        conditions: [{ type: 'Ready', status: 'True' }],
      };
    const w = this.write(method, valid);
    const extra =
      sub === 'log'
        ? [
            p.pick([
              'container=main',
              'container=nope',
              'tailLines=abc',
              'tailLines=-1',
              'limitBytes=5',
              'previous=true',
              'sinceSeconds=x',
            ]),
          ]
        : [];
    return this.build(
      `subresource ${r.plural}/${sub.split('/')[0]}`,
      method,
      `${this.collectionPath(r, ns)}/${encodeURIComponent(name)}/${sub}`,
      w,
      extra,
    );
  }

  watch(r: Resource): FuzzRequest {
    const p = this.p;
    const ns = p.chance(0.8) ? this.namespace(r) : undefined;
    const q = [
      'watch=true',
      `timeoutSeconds=${p.pick(['0', '1', '1', '2'])}`,
      ...this.listQuery().filter((x) => !x.startsWith('timeoutSeconds') && !x.startsWith('limit')),
    ];
    if (p.chance(0.3)) q.push('allowWatchBookmarks=true');
    if (p.chance(0.15)) q.push(`sendInitialEvents=${p.pick(['true', 'false', 'maybe'])}`);
    const fr = this.build(`watch ${r.plural}`, 'GET', this.collectionPath(r, ns), { headers: {}, q: [] }, q);
    fr.stream = true;
    return fr;
  }

  garbageUrl(): FuzzRequest {
    const p = this.p;
    const r = p.pick(this.resources);
    // garbage lives in the expendable `fixture` namespace (dot segments may resolve to the namespace itself)
    const col = this.collectionPath(r, r.namespaced ? FIXTURE_NAME : undefined);
    const path = p.pick([
      `${col}/%zz`,
      `${col}/%E0%A4%A`,
      `${col}/a%00b`,
      `${col}/%2F`,
      `${col}/..`,
      `${col}/.`,
      `${col}/${fixtureName(r)}/status/extra/more`,
      `/${col}`,
      `${col.replace(/\//g, '//')}`,
      `${base(r)}/namespaces//${r.plural}`,
      `${base(r)}/namespaces/${FIXTURE_NAME}/`,
      `/api/v1/watch/namespaces/${FUZZ_NAMESPACE}/configmaps?timeoutSeconds=1`,
      `${col}?labelSelector=%ZZ`,
      `${col}?%zz=1`,
      `${col}?watch=maybe`,
      `/apis/${FUZZ_GROUP}/v1/namespaces/${FUZZ_NAMESPACE}/gadgets/${FIXTURE_NAME}/scale/../status`,
      `/apis/${FUZZ_GROUP}/v9/gadgets`,
      `/apis/apps/v1/namespaces/${FUZZ_NAMESPACE}/deployments/${FIXTURE_NAME}/scale/status`,
      `/openapi/v3/../../etc/passwd`,
      `/api/v1/namespaces/${FUZZ_NAMESPACE}/pods/${'p'.repeat(4000)}`,
      `${col}?${'a=1&'.repeat(500)}`,
      `/apis/${'g'.repeat(300)}/v1/things`,
      `/api/v1/namespaces/${FUZZ_NAMESPACE}/configmaps/\u00e9`,
      `${col}/${FIXTURE_NAME}?fieldManager=%FF%FE`,
      `/apis/${FUZZ_GROUP}/v1/${'gadgets'}`,
      `/api/v1/namespaces/${encodeURIComponent(FUZZ_CRD_NAME)}/configmaps`,
      `${col}/%2E%2E`,
      `${col}/%2e/status`,
      `${col}/%252F`,
      `${col}/a%2Fb`,
      `${base(r)}//${r.plural}`,
      `/api//v1/namespaces`,
      `/apis//apps/v1/deployments`,
      `${col}/${fixtureName(r)}//status`,
      `${col}?timeout=1h`,
      `${col}?watch=&timeoutSeconds=1`,
      `${col}?watch=0&watch=1`,
      `${col}?pretty=1`,
      `${col}?timeout=-1s`,
    ]);
    const method = this.method([
      [60, 'GET'],
      [15, 'POST'],
      [10, 'PATCH'],
      [10, 'DELETE'],
      [5, 'PUT'],
    ]);
    const w = this.write(method, this.valid(r, FIXTURE_NAME, FUZZ_NAMESPACE));
    const fr = this.build('garbage URL', method, path, w);
    if (path.includes('watch')) fr.stream = true;
    return fr;
  }
}

/** Node refuses control characters, spaces and non-Latin-1 in a request path; percent-encode just those. */
function encodeNonAscii(path: string): string {
  return path.replace(/[^\x21-\xff]/g, (c) => encodeURIComponent(c));
}

function scaleObject(p: Prng, r: Resource, name: string, ns: string | undefined): Record<string, unknown> {
  return {
    apiVersion: p.chance(0.9) ? 'autoscaling/v1' : apiVersionOf(r),
    kind: 'Scale',
    metadata: { name, ...(ns ? { namespace: ns } : {}) },
    spec: { replicas: p.pick([0, 1, 3, -1, 2 ** 31, 1.5]) },
  };
}

function tokenRequest(p: Prng): Record<string, unknown> {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: p.pick([600, 3600, -1, 1]) },
  };
}
