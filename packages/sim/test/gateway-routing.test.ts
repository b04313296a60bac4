// The simulated Gateway's routing, pure: Gateway API matching and precedence, the body-based router's
// model header, weighted backend choice (docs/kubeairunway.md, "Gateway on the dev cluster").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AttachedRoute,
  MODEL_NAME_HEADER,
  modelOfBody,
  pickBackend,
  type RoutedRequest,
  rewrittenPath,
  routeRequest,
} from '../src/gateway/index.ts';

const req = (
  path: string,
  headers: Record<string, string> = {},
  extra: Partial<RoutedRequest> = {},
): RoutedRequest => ({
  method: 'POST',
  path,
  headers,
  query: new URLSearchParams(),
  ...extra,
});
const modelRoute = (name: string, model: string, created = '2026-01-01T00:00:00Z'): AttachedRoute => ({
  namespace: 'ns',
  name,
  creationTimestamp: created,
  rules: [
    {
      matches: [
        {
          path: { type: 'PathPrefix', value: '/' },
          headers: [{ type: 'Exact', name: 'X-Gateway-Model-Name', value: model }],
        },
      ],
      backendRefs: [{ name }],
    },
  ],
});
const pathRoute = (name: string, type: string, value: string): AttachedRoute => ({
  namespace: 'ns',
  name,
  rules: [{ matches: [{ path: { type, value } }], backendRefs: [{ name }] }],
});

describe('routeRequest', () => {
  const routes = [modelRoute('qwen', 'Qwen/Qwen3'), modelRoute('gemma', 'google/gemma')];
  const cases: Array<[string, AttachedRoute[], RoutedRequest, string | undefined]> = [
    [
      'the model header picks the route',
      routes,
      req('/v1/chat/completions', { [MODEL_NAME_HEADER]: 'google/gemma' }),
      'gemma',
    ],
    [
      'header values are exact',
      routes,
      req('/v1/chat/completions', { [MODEL_NAME_HEADER]: 'google/gemma-2' }),
      undefined,
    ],
    ['no header, no route', routes, req('/v1/chat/completions'), undefined],
    [
      'an exact path beats a prefix',
      [pathRoute('prefix', 'PathPrefix', '/v1'), pathRoute('exact', 'Exact', '/v1/models')],
      req('/v1/models'),
      'exact',
    ],
    [
      'the longest prefix wins',
      [pathRoute('short', 'PathPrefix', '/v1'), pathRoute('long', 'PathPrefix', '/v1/chat')],
      req('/v1/chat/completions'),
      'long',
    ],
    ['a prefix matches whole segments only', [pathRoute('v1', 'PathPrefix', '/v1')], req('/v10/models'), undefined],
    [
      'more header matches win over fewer',
      [pathRoute('any', 'PathPrefix', '/'), modelRoute('qwen', 'Qwen/Qwen3')],
      req('/x', { [MODEL_NAME_HEADER]: 'Qwen/Qwen3' }),
      'qwen',
    ],
    [
      'ties go to the oldest route',
      [modelRoute('new', 'm', '2026-02-01T00:00:00Z'), modelRoute('old', 'm', '2026-01-01T00:00:00Z')],
      req('/', { [MODEL_NAME_HEADER]: 'm' }),
      'old',
    ],
    [
      'a rule with no matches matches every path',
      [{ namespace: 'ns', name: 'all', rules: [{ backendRefs: [{ name: 'all' }] }] }],
      req('/anything'),
      'all',
    ],
    [
      'a method match must agree',
      [{ namespace: 'ns', name: 'get', rules: [{ matches: [{ method: 'GET' }] }] }],
      req('/'),
      undefined,
    ],
    [
      'hostnames must match the Host header',
      [{ ...pathRoute('h', 'PathPrefix', '/'), hostnames: ['*.example.com'] }],
      req('/', {}, { host: 'a.example.com:80' }),
      'h',
    ],
    [
      'a foreign host misses',
      [{ ...pathRoute('h', 'PathPrefix', '/'), hostnames: ['*.example.com'] }],
      req('/', {}, { host: 'other.org' }),
      undefined,
    ],
  ];
  for (const [name, rs, r, want] of cases) it(name, () => assert.equal(routeRequest(rs, r)?.route.name, want));
});

describe('modelOfBody', () => {
  const cases: Array<[string, string, string | undefined, string | undefined]> = [
    ['a JSON body with a model', '{"model":"m","messages":[]}', 'application/json', 'm'],
    ['no content type, JSON body', '{"model":"m"}', undefined, 'm'],
    ['a non-string model', '{"model":3}', 'application/json', undefined],
    ['not JSON', 'model=m', 'application/x-www-form-urlencoded', undefined],
    ['broken JSON', '{"model":', 'application/json', undefined],
    ['empty', '', 'application/json', undefined],
  ];
  for (const [name, body, type, want] of cases)
    it(name, () => assert.equal(modelOfBody(Buffer.from(body), type), want));
});

describe('pickBackend', () => {
  it('by weight, skipping weight 0', () => {
    const refs = [
      { name: 'a', weight: 1 },
      { name: 'zero', weight: 0 },
      { name: 'b', weight: 3 },
    ];
    assert.equal(pickBackend(refs, 0)?.name, 'a');
    assert.equal(pickBackend(refs, 0.24)?.name, 'a');
    assert.equal(pickBackend(refs, 0.26)?.name, 'b');
    assert.equal(pickBackend(refs, 0.99)?.name, 'b');
    assert.equal(pickBackend([{ name: 'z', weight: 0 }], 0.5), undefined);
    assert.equal(pickBackend([], 0.5), undefined);
  });
});

describe('rewrittenPath (URLRewrite)', () => {
  const rewriting = (prefix: string, path: Record<string, string>): AttachedRoute => ({
    namespace: 'ns',
    name: 'aim',
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: prefix } }],
        filters: [{ type: 'URLRewrite', urlRewrite: { path: path as never } }],
        backendRefs: [{ name: 'svc' }],
      },
    ],
  });
  const through = (route: AttachedRoute, path: string) => {
    const d = routeRequest([route], req(path));
    assert.ok(d, `${path} matches`);
    return rewrittenPath(d, path);
  };
  const aim = rewriting('/quickstart/chatbot/qwen-chat', { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' });
  const cases: Array<[string, AttachedRoute, string, string]> = [
    [
      'the AIM route: the service prefix goes',
      aim,
      '/quickstart/chatbot/qwen-chat/v1/chat/completions',
      '/v1/chat/completions',
    ],
    ['the prefix alone becomes /', aim, '/quickstart/chatbot/qwen-chat', '/'],
    ['a trailing slash keeps one', aim, '/quickstart/chatbot/qwen-chat/', '/'],
    [
      'a prefix with a trailing slash matches the same segments',
      rewriting('/a/b/', { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' }),
      '/a/b/v1/models',
      '/v1/models',
    ],
    [
      'onto another prefix',
      rewriting('/old', { type: 'ReplacePrefixMatch', replacePrefixMatch: '/new/' }),
      '/old/x',
      '/new/x',
    ],
    ['a full path', rewriting('/p', { type: 'ReplaceFullPath', replaceFullPath: '/health' }), '/p/anything', '/health'],
    ['without a filter the path passes', pathRoute('plain', 'PathPrefix', '/p'), '/p/v1/models', '/p/v1/models'],
  ];
  for (const [name, route, path, want] of cases) it(name, () => assert.equal(through(route, path), want));
});
