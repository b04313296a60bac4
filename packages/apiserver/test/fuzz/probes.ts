// Requests whose answer is known exactly, each one a case kube-apiserver 1.32 decides in a particular way:
// malformed and repeated query parameters, list-option validation, empty and encoded path segments, content
// negotiation (406s from the route and from the negotiator), request deadlines and slow-loris bodies, and a
// `__proto__` field. Every one was a wrong answer of this server once; they stay as regression cases.
import { FIXTURE_NAME, FUZZ_GROUP, FUZZ_NAMESPACE, validObject } from './corpus.ts';
import type { Prng } from './prng.ts';
import type { FuzzRequest, Resource } from './types.ts';

const base = (r: Resource) => (r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`);
const collection = (r: Resource) =>
  r.namespaced ? `${base(r)}/namespaces/${FUZZ_NAMESPACE}/${r.plural}` : `${base(r)}/${r.plural}`;
/** custom resources are served by the CRD handler, not by go-restful routes */
const isCustom = (r: Resource) => r.group === FUZZ_GROUP;

interface Probe {
  note: string;
  method?: string;
  path: string;
  expect: number[];
  headers?: Record<string, string>;
  body?: Buffer;
  stream?: boolean;
  slow?: { pieces: number; delayMs: number };
}

/** the probes that apply to a listable resource */
function probesFor(r: Resource): Probe[] {
  const col = collection(r);
  const item = `${col}/${FIXTURE_NAME}`;
  const out: Probe[] = [
    { note: 'limit that is not a number', path: `${col}?limit=abc`, expect: [400] },
    { note: 'negative limit (no limit)', path: `${col}?limit=-1`, expect: [200] },
    { note: 'limit beyond int64', path: `${col}?limit=99999999999999999999`, expect: [400] },
    { note: 'repeated limit: the first value counts', path: `${col}?limit=1&limit=abc`, expect: [200] },
    { note: 'repeated limit, first malformed', path: `${col}?limit=abc&limit=1`, expect: [400] },
    { note: 'timeoutSeconds that is not a number', path: `${col}?timeoutSeconds=x`, expect: [400] },
    {
      note: 'resourceVersionMatch without resourceVersion',
      path: `${col}?resourceVersionMatch=NotOlderThan`,
      expect: [422],
    },
    {
      note: 'unsupported resourceVersionMatch',
      path: `${col}?resourceVersion=0&resourceVersionMatch=Bogus`,
      expect: [422],
    },
    { note: 'sendInitialEvents on a list', path: `${col}?sendInitialEvents=true`, expect: [422] },
    {
      note: 'watch with sendInitialEvents but no resourceVersionMatch',
      path: `${col}?watch=1&sendInitialEvents=true&timeoutSeconds=1`,
      expect: [422],
    },
    { note: 'malformed request timeout', path: `${col}?timeout=abc`, expect: [400] },
    { note: 'an encoded slash: a trailing separator, so the list', path: `${col}/%2F`, expect: [200] },
    { note: 'encoded dot-dot as a name', path: `${col}/%2E%2E`, expect: [400] },
    { note: 'encoded dot as a name', path: `${col}/%2e`, expect: [400] },
    { note: 'a name with a percent sign', path: `${col}/a%2525b`, expect: [400] },
    { note: 'leading double slash', path: `/${col}`, expect: [404] },
    { note: 'YAML list', path: col, headers: { Accept: 'application/yaml' }, expect: [200] },
    {
      note: 'YAML watch has no stream encoding',
      path: `${col}?watch=true&timeoutSeconds=1`,
      headers: { Accept: 'application/yaml' },
      expect: [406],
    },
    {
      note: 'q-values pick YAML',
      path: col,
      headers: { Accept: 'application/json;q=0.5, application/yaml' },
      expect: [200],
    },
    {
      note: 'an unknown conversion',
      path: col,
      headers: { Accept: 'application/json;as=Bogus;g=meta.k8s.io;v=v1' },
      expect: [406],
    },
    { note: 'a media type nobody serves', path: col, headers: { Accept: 'text/html' }, expect: [406] },
    {
      note: 'PartialObjectMetadata of a list',
      path: col,
      headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
      expect: [406],
    },
    {
      note: 'PartialObjectMetadataList of one object',
      path: item,
      headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' },
      expect: [406, 404],
    },
    {
      note: 'Table with an unsupported includeObject',
      path: `${col}?includeObject=Bogus`,
      headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
      expect: [400],
    },
    {
      note: 'slow-loris body past a 1s deadline',
      method: 'POST',
      path: `${col}?timeout=1s&dryRun=All`,
      expect: [504],
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from(JSON.stringify(validObject(r, 'slow-loris', r.namespaced ? FUZZ_NAMESPACE : undefined))),
      slow: { pieces: 8, delayMs: 400 },
    },
    {
      note: '__proto__ field in metadata',
      method: 'POST',
      path: `${col}?dryRun=All`,
      expect: [400],
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from(
        JSON.stringify(validObject(r, 'proto-key', r.namespaced ? FUZZ_NAMESPACE : undefined)).replace(
          '"metadata":{',
          '"metadata":{"__proto__":{"name":"evil"},',
        ),
      ),
    },
  ];
  if (r.namespaced) {
    const all = `${base(r)}/namespaces//${r.plural}`;
    out.push(
      { note: 'empty namespace segment: every namespace', path: all, expect: [200] },
      { note: 'empty namespace segment, broken selector', path: `${all}?labelSelector=a%20in%20(`, expect: [400] },
      { note: 'empty namespace segment, one object', path: `${all}/${FIXTURE_NAME}`, expect: [400] },
    );
  }
  if (!isCustom(r)) {
    out.push(
      { note: 'HEAD has no route', method: 'HEAD', path: col, expect: [405] },
      {
        note: 'POST to an object path has no route',
        method: 'POST',
        path: `${col}/x`,
        headers: { 'Content-Type': 'application/json' },
        body: Buffer.from('{}'),
        expect: [405],
      },
      { note: 'POST without a Content-Type', method: 'POST', path: col, body: Buffer.from('{}'), expect: [415] },
      {
        note: 'the deprecated watch path',
        path: `${base(r)}/watch${r.namespaced ? `/namespaces/${FUZZ_NAMESPACE}` : ''}/${r.plural}?timeoutSeconds=1`,
        expect: [200],
        stream: true,
      },
    );
    if (r.plural !== 'customresourcedefinitions')
      out.push({
        note: 'protobuf list',
        path: col,
        headers: { Accept: 'application/vnd.kubernetes.protobuf' },
        expect: [200],
      });
  } else {
    out.push({
      note: 'custom resources have no protobuf form',
      path: col,
      headers: { Accept: 'application/vnd.kubernetes.protobuf' },
      expect: [406],
    });
  }
  return out;
}

export function probe(p: Prng, resources: Resource[]): FuzzRequest {
  const listable = resources.filter((r) => r.verbs.includes('list') && r.verbs.includes('create'));
  const r = p.pick(listable);
  const pr = p.pick(probesFor(r));
  const fr: FuzzRequest = {
    family: `probe ${r.plural}`,
    method: pr.method ?? 'GET',
    path: pr.path,
    headers: pr.headers ?? {},
    note: pr.note,
    expect: pr.expect,
  };
  if (pr.body) fr.body = pr.body;
  if (pr.stream) fr.stream = true;
  if (pr.slow) fr.slow = pr.slow;
  return fr;
}
