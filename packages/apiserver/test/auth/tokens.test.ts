// Bearer credentials: the tokens file format, and ServiceAccount JWTs — claims, signature, audiences,
// expiry, and invalidation when the ServiceAccount or bound object goes away or is recreated.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { deriveJwtKey, signJwt } from '../../src/auth/jwt.ts';
import { DEFAULT_ISSUER, ServiceAccountTokens } from '../../src/auth/service-account-tokens.ts';
import { parseTokensFile } from '../../src/auth/static-tokens.ts';
import { isApiError } from '../../src/objects/write-path.ts';
import { ObjectStore } from '../../src/storage/store.ts';
import type { KubeObject } from '../../src/types.ts';

describe('tokens file', () => {
  const cases: {
    name: string;
    text: string;
    want: Record<string, { username: string; uid: string; groups: string[] }>;
  }[] = [
    {
      name: 'three columns',
      text: 'tok1,alice,uid-a\n',
      want: { tok1: { username: 'alice', uid: 'uid-a', groups: [] } },
    },
    {
      name: 'quoted groups',
      text: 'tok2,bob,uid-b,"devs,ops"',
      want: { tok2: { username: 'bob', uid: 'uid-b', groups: ['devs', 'ops'] } },
    },
    {
      name: 'single unquoted group and extra columns',
      text: 'tok3,carol,uid-c,devs,ignored',
      want: { tok3: { username: 'carol', uid: 'uid-c', groups: ['devs'] } },
    },
    {
      name: 'blank lines, CRLF and leading spaces',
      text: '\r\ntok4, dave, uid-d\r\n\r\n',
      want: { tok4: { username: 'dave', uid: 'uid-d', groups: [] } },
    },
    {
      name: 'empty token skipped',
      text: ',erin,uid-e\ntok5,frank,uid-f',
      want: { tok5: { username: 'frank', uid: 'uid-f', groups: [] } },
    },
    {
      name: 'a repeated token keeps the later line',
      text: 'tok6,old,1\ntok6,new,2',
      want: { tok6: { username: 'new', uid: '2', groups: [] } },
    },
    {
      name: 'escaped quote inside quotes',
      text: 'tok7,"we""ird",u',
      want: { tok7: { username: 'we"ird', uid: 'u', groups: [] } },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(Object.fromEntries(parseTokensFile(c.text)), c.want));

  it('refuses a record with fewer than three columns, naming file and line', () => {
    assert.throws(
      () => parseTokensFile('ok,a,b\nshort,x\n', '/etc/tokens.csv'),
      /token file '\/etc\/tokens.csv' must have at least 3 columns \(token, user name, user uid\), found 2 on line 2/,
    );
  });
  it('refuses an unterminated quote', () => {
    assert.throws(() => parseTokensFile('t,u,i,"a,b\n'), /extraneous or missing " in quoted-field/);
  });
});

describe('ServiceAccount tokens', () => {
  let store: ObjectStore;
  let tokens: ServiceAccountTokens;
  const key = deriveJwtKey('docs/controllers.md');
  const add = (key: string, kind: string, name: string, uid: string, namespace: string | null = 'team'): KubeObject =>
    store.commit(key, 'ADDED', {
      apiVersion: 'v1',
      kind,
      metadata: { name, uid, ...(namespace ? { namespace } : {}) },
    });

  beforeEach(() => {
    store = new ObjectStore();
    tokens = new ServiceAccountTokens(store, key);
    add('/serviceaccounts', 'ServiceAccount', 'bot', 'sa-uid-1');
  });

  const mint = (over: Partial<Parameters<ServiceAccountTokens['mint']>[0]> = {}) =>
    tokens.mint({ namespace: 'team', name: 'bot', audiences: [DEFAULT_ISSUER], expirationSeconds: 3600, ...over });
  const payload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

  it('signs kube’s claims and authenticates as the ServiceAccount', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const { token } = tokens.mint(
      { namespace: 'team', name: 'bot', audiences: [DEFAULT_ISSUER], expirationSeconds: 3600 },
      now,
    );
    const claims = payload(token);
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(claims.aud, [DEFAULT_ISSUER]);
    assert.equal(claims.iss, DEFAULT_ISSUER);
    assert.equal(claims.sub, 'system:serviceaccount:team:bot');
    assert.equal(claims.iat, Date.parse('2030-01-01T00:00:00Z') / 1000);
    assert.equal(claims.nbf, claims.iat);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'team', serviceaccount: { name: 'bot', uid: 'sa-uid-1' } });
    assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, 'HS256');
    const check = tokens.review(token, undefined, now.getTime());
    assert.deepEqual(check?.user, {
      username: 'system:serviceaccount:team:bot',
      uid: 'sa-uid-1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
    });
    assert.deepEqual(check?.audiences, [DEFAULT_ISSUER]);
  });

  it('ignores what is not its own token: other keys, tampering, other issuers, non-JWTs', () => {
    const { token } = mint();
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = { ...payload(token), sub: 'system:serviceaccount:kube-system:admin' };
    assert.equal(tokens.review(`${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`), undefined);
    assert.equal(new ServiceAccountTokens(store, deriveJwtKey('other-seed')).review(token), undefined);
    assert.equal(tokens.review(signJwt(key, { ...payload(token), iss: 'https://elsewhere' })), undefined);
    assert.equal(tokens.review('plain-static-token'), undefined);
    assert.equal(tokens.review(`${h}.${p}`), undefined);
  });

  it('rejects tokens of a deleted or recreated ServiceAccount', () => {
    const { token } = mint();
    assert.ok(tokens.authenticate(token));
    const sa = store.get('/serviceaccounts', 'team', 'bot')!;
    store.commit('/serviceaccounts', 'MODIFIED', {
      ...sa,
      metadata: { ...sa.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' },
    });
    assert.deepEqual(tokens.review(token), { error: 'service account team/bot has been deleted' });
    store.commit('/serviceaccounts', 'DELETED', store.get('/serviceaccounts', 'team', 'bot')!);
    assert.deepEqual(tokens.review(token), { error: 'serviceaccounts "bot" not found' });
    assert.equal(tokens.authenticate(token), undefined);
    add('/serviceaccounts', 'ServiceAccount', 'bot', 'sa-uid-2');
    assert.deepEqual(tokens.review(token), { error: 'service account UID (sa-uid-2) does not match claim (sa-uid-1)' });
    assert.ok(tokens.authenticate(mint().token), 'a fresh token for the new ServiceAccount works');
  });

  it('enforces expiry and not-before with a minute of leeway', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const { token } = tokens.mint(
      { namespace: 'team', name: 'bot', audiences: [DEFAULT_ISSUER], expirationSeconds: 600 },
      new Date(now),
    );
    assert.ok(tokens.review(token, undefined, now + 650_000)?.user);
    assert.deepEqual(tokens.review(token, undefined, now + 700_000), { error: 'service account token has expired' });
    assert.deepEqual(tokens.review(token, undefined, now - 120_000), {
      error: 'service account token is not valid yet',
    });
  });

  it('accepts a token only for an audience it names', () => {
    const { token } = mint({ audiences: ['vault'] });
    assert.equal(tokens.authenticate(token), undefined, 'not for the API server');
    assert.deepEqual(tokens.review(token), {
      error: `token audiences ["vault"] is invalid for the target audiences ["${DEFAULT_ISSUER}"]`,
    });
    assert.deepEqual(tokens.review(token, ['vault', 'other'])?.audiences, ['vault']);
  });

  it('binds to a Pod, Secret or Node, and dies with it', () => {
    const pod = add('/pods', 'Pod', 'web-0', 'pod-uid');
    const { token, claims } = mint({
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: 'pod-uid' },
    });
    assert.deepEqual(claims['kubernetes.io'].pod, { name: 'web-0', uid: 'pod-uid' });
    assert.deepEqual(tokens.review(token)?.user?.extra?.['authentication.kubernetes.io/pod-name'], ['web-0']);
    store.commit('/pods', 'DELETED', pod);
    assert.deepEqual(tokens.review(token), { error: 'pods "web-0" not found' });

    add('/secrets', 'Secret', 's', 'secret-uid');
    assert.deepEqual(
      mint({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } }).claims['kubernetes.io'].secret,
      { name: 's', uid: 'secret-uid' },
    );
    add('/nodes', 'Node', 'n1', 'node-uid', null);
    const node = mint({ boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } });
    assert.deepEqual(tokens.review(node.token)?.user?.extra?.['authentication.kubernetes.io/node-name'], ['n1']);
  });

  const refusals: {
    name: string;
    req: Partial<Parameters<ServiceAccountTokens['mint']>[0]>;
    code: number;
    message: string;
  }[] = [
    { name: 'missing ServiceAccount', req: { name: 'ghost' }, code: 404, message: 'serviceaccounts "ghost" not found' },
    {
      name: 'unsupported bound kind',
      req: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } },
      code: 400,
      message: 'cannot bind token for serviceaccount "bot" to object of type /v1, Kind=ConfigMap',
    },
    {
      name: 'bound kind in another group',
      req: { boundObjectRef: { kind: 'Pod', apiVersion: 'apps/v1', name: 'c' } },
      code: 400,
      message: 'cannot bind token for serviceaccount "bot" to object of type apps/v1, Kind=Pod',
    },
    {
      name: 'missing bound object',
      req: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } },
      code: 404,
      message: 'pods "nope" not found',
    },
  ];
  for (const c of refusals) {
    it(`refuses to mint: ${c.name}`, () => {
      assert.throws(
        () => mint(c.req),
        (e: unknown) => isApiError(e) && e.code === c.code && e.message === c.message,
      );
    });
  }
  it('refuses a bound object whose uid changed', () => {
    add('/pods', 'Pod', 'p', 'real-uid');
    assert.throws(
      () => mint({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'stale-uid' } }),
      (e: unknown) =>
        isApiError(e) &&
        e.code === 409 &&
        /the UID in the bound object reference \(stale-uid\) does not match the UID in record/.test(e.message),
    );
  });
});
