import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Optional } from '@marcbachmann/cel-js';
import { CelCompileError, CelEvalError, compileCel, fromCel, toCel } from '../src/cel/index.ts';

const object = {
  apiVersion: 'serving.example.org/v1',
  kind: 'InferenceService',
  metadata: { name: 'llama', labels: { 'org.example/team': 'ml' } },
  spec: {
    replicas: 3,
    ratio: 0.5,
    engine: { type: 'vllm', version: 'v0.6.1' },
    resources: { gpu: { count: 2 }, memory: '24Gi', cpu: '500m' },
    containers: [
      { name: 'server', port: 8000, args: ['--tp', '2'] },
      { name: 'sidecar', port: 9090 },
    ],
    tags: ['b', 'a', 'c'],
    nums: [3, 1, 2],
    host: 'Model-Server.example.com',
    endpoint: 'https://api.example.com:8443/v1/chat?stream=true&x=1&x=2',
    cidr: '10.0.0.0/16',
    address: '10.0.3.7',
  },
};
const old = { ...object, spec: { ...object.spec, replicas: 2, engine: { type: 'vllm', version: 'v0.5.0' } } };

const self = toCel(object);
const oldSelf = toCel(old);

interface Case {
  expr: string;
  want?: unknown;
  /** runtime error message pattern */
  evalError?: RegExp;
  vars?: Record<string, unknown>;
}

const cases: Case[] = [
  // presence, membership, sizes
  { expr: 'has(self.spec.replicas)', want: true },
  { expr: 'has(self.spec.missing)', want: false },
  { expr: '!has(self.status)', want: true },
  { expr: "self.spec.engine.type in ['vllm', 'sglang']", want: true },
  { expr: "'org.example/team' in self.metadata.labels", want: true },
  { expr: "self.metadata.labels['org.example/team'] == 'ml'", want: true },
  { expr: 'size(self.spec.containers) == 2', want: true },
  { expr: 'self.spec.containers.size()', want: 2 },
  { expr: "size('héllo')", want: 5 },
  // strings
  { expr: "self.spec.engine.version.startsWith('v0.')", want: true },
  { expr: "self.metadata.name.endsWith('ma')", want: true },
  { expr: "self.spec.host.contains('example')", want: true },
  { expr: 'self.spec.host.lowerAscii()', want: 'model-server.example.com' },
  { expr: "'abc'.upperAscii()", want: 'ABC' },
  { expr: "'  x  '.trim()", want: 'x' },
  { expr: "'a,b,c'.split(',')", want: ['a', 'b', 'c'] },
  { expr: "['a', 'b'].join('-')", want: 'a-b' },
  { expr: "'hello'.indexOf('l')", want: 2 },
  { expr: "'hello'.lastIndexOf('l')", want: 3 },
  { expr: "'hello'.substring(1, 3)", want: 'el' },
  { expr: "'hello'.charAt(1)", want: 'e' },
  { expr: "'hello'.charAt(5)", want: '' },
  { expr: "'hello'.charAt(6)", evalError: /index out of range: 6/ },
  { expr: "'a-b-c'.replace('-', '_')", want: 'a_b_c' },
  { expr: "'a-b-c'.replace('-', '_', 1)", want: 'a_b-c' },
  { expr: "'abc'.replace('', '.')", want: '.a.b.c.' },
  { expr: "'%s has %d replicas'.format([self.metadata.name, self.spec.replicas])", want: 'llama has 3 replicas' },
  { expr: "'%.2f|%e|%x|%X|%o|%b|%%'.format([1.5, 1500.0, 255, 255, 8, 5])", want: '1.50|1.500000e+03|ff|FF|10|101|%' },
  { expr: "'%s'.format([[1, 'a', true]])", want: '[1, a, true]' },
  { expr: "'%d'.format(['x'])", evalError: /%d requires an integer/ },
  { expr: "'abc'.reverse()", want: 'cba' },
  // regex through RE2
  { expr: "self.metadata.name.matches('^[a-z0-9-]+$')", want: true },
  { expr: "self.spec.host.matches('(?i)^model-server\\\\.')", want: true },
  { expr: "self.spec.host.matches('^model-server')", want: false },
  { expr: "'日本語'.matches('^\\\\p{Han}+$')", want: true },
  { expr: "matches('abc', 'b')", want: true },
  { expr: "'x'.matches(self.spec.engine.type)", want: false },
  { expr: "'abc 123 de 45'.find('[0-9]+')", want: '123' },
  { expr: "'abc'.find('[0-9]+')", want: '' },
  { expr: "'abc 123 de 45'.findAll('[0-9]+')", want: ['123', '45'] },
  { expr: "'a1b2c3'.findAll('[0-9]', 2)", want: ['1', '2'] },
  { expr: "'x'.matches(self.spec.tags[0] + '(')", evalError: /missing closing \)/ },
  // macros
  { expr: "self.spec.containers.exists(c, c.name == 'sidecar')", want: true },
  { expr: 'self.spec.containers.all(c, c.port > 1024)', want: true },
  { expr: 'self.spec.containers.exists_one(c, c.port == 8000)', want: true },
  { expr: 'self.spec.containers.filter(c, c.port > 8500).map(c, c.name)', want: ['sidecar'] },
  { expr: 'self.spec.containers.map(c, c.port)', want: [8000, 9090] },
  { expr: 'self.spec.containers.map(c, has(c.args), c.name)', want: ['server'] },
  { expr: "self.metadata.labels.all(k, k.startsWith('org.'))", want: true },
  { expr: 'cel.bind(c, self.spec.containers[0], c.port + 1)', want: 8001 },
  // optionals
  { expr: "self.spec.?engine.?type.orValue('none')", want: 'vllm' },
  { expr: "self.spec.?missing.?type.orValue('none')", want: 'none' },
  { expr: "self.metadata.labels[?'absent'].orValue('x')", want: 'x' },
  { expr: 'optional.of(1).hasValue() && !optional.none().hasValue()', want: true },
  // int/double arithmetic on JSON numbers
  { expr: 'self.spec.replicas + 1', want: 4 },
  { expr: 'self.spec.replicas * 2 == 6', want: true },
  { expr: 'self.spec.replicas / 2', want: 1 },
  { expr: 'self.spec.replicas % 2 == 1', want: true },
  { expr: 'self.spec.ratio * 4.0', want: 2 },
  { expr: 'double(self.spec.replicas) / 2.0', want: 1.5 },
  { expr: 'self.spec.replicas > 2.5', want: true },
  { expr: 'int(self.spec.ratio * 10.0)', want: 5 },
  { expr: 'string(self.spec.replicas)', want: '3' },
  { expr: "int('42') + 1", want: 43 },
  { expr: 'self.spec.replicas / 0', evalError: /division by zero/ },
  { expr: '9223372036854775807 + self.spec.replicas', evalError: /overflow/ },
  { expr: 'type(self.spec.replicas) == int && type(self.spec.ratio) == double', want: true },
  // errors at run time
  { expr: 'self.spec.missing == 1', evalError: /^no such key: missing$/ },
  { expr: 'self.spec.tags[5]', evalError: /index out of bounds: 5/ },
  { expr: 'self.spec.missing == 1 || true', want: true },
  // lists
  { expr: 'self.spec.nums.sum()', want: 6 },
  { expr: '[1.5, 2.5].sum()', want: 4 },
  { expr: 'self.spec.nums.min() == 1 && self.spec.nums.max() == 3', want: true },
  { expr: "['b', 'a'].min()", want: 'a' },
  { expr: 'self.spec.nums.isSorted()', want: false },
  { expr: '[1, 2, 2, 5].isSorted()', want: true },
  { expr: "self.spec.tags.indexOf('a')", want: 1 },
  { expr: '[1, 2, 1].lastIndexOf(1)', want: 2 },
  { expr: "self.spec.tags.indexOf('z')", want: -1 },
  { expr: '[].min()', evalError: /min called on empty list/ },
  { expr: '[1, 2, 3, 4].slice(1, 3)', want: [2, 3] },
  { expr: '[[1], [2, 3]].flatten()', want: [1, 2, 3] },
  { expr: 'self.spec.tags.sort()', want: ['a', 'b', 'c'] },
  { expr: '[1, 2, 1].distinct()', want: [1, 2] },
  { expr: 'sets.contains(self.spec.tags, ["a", "b"])', want: true },
  { expr: 'sets.equivalent([1, 2], [2, 1, 1])', want: true },
  { expr: 'sets.intersects([1, 2], [3])', want: false },
  // quantity
  { expr: "quantity(self.spec.resources.memory).isGreaterThan(quantity('16Gi'))", want: true },
  { expr: "quantity(self.spec.resources.cpu).isLessThan(quantity('1'))", want: true },
  { expr: "quantity('1') == quantity('1000m')", want: true },
  { expr: "quantity('1Gi').compareTo(quantity('1G'))", want: 1 },
  { expr: "quantity('1.5Gi').add(quantity('512Mi')) == quantity('2Gi')", want: true },
  { expr: "quantity('2').sub(1).asInteger()", want: 1 },
  { expr: "quantity('1.5').isInteger()", want: false },
  { expr: "quantity('250m').asApproximateFloat()", want: 0.25 },
  { expr: "quantity('-3').sign()", want: -1 },
  { expr: "isQuantity('1.5Gi') && !isQuantity('1.5GB')", want: true },
  { expr: "quantity('1GB')", evalError: /quantities must match the regular expression/ },
  // ip / cidr / url
  { expr: 'ip(self.spec.address).family() == 4', want: true },
  { expr: 'cidr(self.spec.cidr).containsIP(self.spec.address)', want: true },
  { expr: "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", want: true },
  { expr: "string(cidr('10.1.2.3/8').masked())", want: '10.0.0.0/8' },
  { expr: "cidr('fd00::/8').prefixLength()", want: 8 },
  {
    expr: "ip('127.0.0.1').isLoopback() && ip('fe80::1').isLinkLocalUnicast() && ip('8.8.8.8').isGlobalUnicast()",
    want: true,
  },
  { expr: "string(ip('2001:0db8:0000:0000:0000:0000:0000:0001'))", want: '2001:db8::1' },
  { expr: "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", want: true },
  { expr: "isIP('10.0.0.256') || isIP('010.0.0.1') || isIP('fe80::1%eth0') || isIP('::ffff:1.2.3.4')", want: false },
  { expr: "isCIDR('10.0.0.0/33')", want: false },
  { expr: "ip('1.2.3')", evalError: /parse error during conversion from string/ },
  { expr: 'url(self.spec.endpoint).getHostname()', want: 'api.example.com' },
  { expr: 'url(self.spec.endpoint).getPort()', want: '8443' },
  { expr: "url(self.spec.endpoint).getQuery()['x']", want: ['1', '2'] },
  { expr: 'url(self.spec.endpoint).getEscapedPath()', want: '/v1/chat' },
  { expr: "url('https://[::1]:80/').getHost()", want: '[::1]:80' },
  { expr: "isURL('/relative/path') && !isURL('not a url') && !isURL('mailto:a@b.c')", want: true },
  // semver
  { expr: "semver('1.2.3').isLessThan(semver('1.10.0'))", want: true },
  { expr: "semver('1.0.0-alpha.1').compareTo(semver('1.0.0'))", want: -1 },
  { expr: "semver('v1.2', true).minor() == 2 && isSemver('1.2.3-rc.1+build.5') && !isSemver('v1.2.3')", want: true },
  // timestamps and durations
  { expr: "timestamp('2024-01-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')", want: true },
  { expr: "duration('1h30m') > duration('90m')", want: false },
  // transition rules
  { expr: 'self.spec.replicas >= oldSelf.spec.replicas', want: true, vars: { self, oldSelf } },
  { expr: 'self.spec.engine.version == oldSelf.spec.engine.version', want: false, vars: { self, oldSelf } },
  {
    expr: 'oldSelf.hasValue() ? self.spec.replicas >= oldSelf.value().spec.replicas : true',
    want: true,
    vars: { self, oldSelf: Optional.of(oldSelf) },
  },
  { expr: 'oldSelf.?spec.?replicas.orValue(0) == 0', want: true, vars: { self, oldSelf: Optional.none() } },
];

describe('Kubernetes CEL expressions', () => {
  for (const c of cases) {
    it(c.expr, () => {
      const optionalOld = c.vars?.oldSelf instanceof Optional;
      const variables = c.vars
        ? ['self', optionalOld ? { name: 'oldSelf', type: 'optional<dyn>' } : 'oldSelf']
        : ['self'];
      const program = compileCel(c.expr, { variables });
      const vars = c.vars ?? { self };
      if (c.evalError) {
        assert.throws(
          () => program.evaluate(vars),
          (err: unknown) => err instanceof CelEvalError && c.evalError!.test(err.message),
        );
      } else {
        assert.deepEqual(fromCel(program.evaluate(vars)), c.want);
      }
    });
  }
  it('covers at least 60 expressions', () => assert.ok(cases.length >= 60, `${cases.length} cases`));
});

describe('matches() never uses JS RegExp', () => {
  it("returns for the catastrophic ('a' * 36 + '!').matches('^(a+)+$')", () => {
    const input = `${'a'.repeat(36)}!`;
    assert.equal(compileCel("self.matches('^(a+)+$')").evaluate({ self: input }), false);
  });
  it('supports RE2-only syntax that JS RegExp rejects', () => {
    assert.equal(compileCel("'ABC'.matches('(?i)abc')").evaluate({}), true);
  });
});

describe('compile errors', () => {
  const bad: [string, RegExp][] = [
    ['self.spec.replicas >', /^ERROR: <input>:1:21: /],
    ['self.x.startsWithh("a")', /no matching overload/],
    ["1 + 'a'", /found no matching overload for '_\+_' applied to '\(int, string\)'/],
    ['other.x == 1', /undeclared reference to 'other'/],
    ["self.name.matches('(')", /error parsing regexp: missing closing \)/],
    ['self.name.matches(1)', /no matching overload for 'dyn\.matches\(int\)'/],
    ['', /expression is empty/],
  ];
  for (const [expr, pattern] of bad) {
    it(JSON.stringify(expr), () => {
      assert.throws(
        () => compileCel(expr),
        (err: unknown) => err instanceof CelCompileError && pattern.test(err.message),
      );
    });
  }
  it('reports the position with a caret line, as cel-go does', () => {
    assert.throws(
      () => compileCel("self.a == 'x' &&\n  self.b = 2"),
      (err: unknown) => {
        assert.ok(err instanceof CelCompileError);
        assert.match(err.message, /^ERROR: <input>:2:/);
        assert.match(err.message, /\n \| {3}self\.b = 2\n \| \.+\^$/);
        return true;
      },
    );
  });
  it('caches programs and compile failures per expression and variables', () => {
    assert.equal(compileCel('self.a == 1'), compileCel('self.a == 1'));
    assert.notEqual(compileCel('self.a == 1'), compileCel('self.a == 1', { variables: ['self', 'oldSelf'] }));
    const first = (() => {
      try {
        compileCel('self.a ==');
      } catch (e) {
        return e;
      }
    })();
    assert.throws(
      () => compileCel('self.a =='),
      (e: unknown) => e === first,
    );
  });
  it('reports the result type and referenced identifiers', () => {
    const p = compileCel('self.a == oldSelf.a', { variables: ['self', 'oldSelf'] });
    assert.equal(p.type, 'bool');
    assert.ok(p.identifiers.has('oldSelf'));
    assert.ok(!compileCel('self.oldSelf == 1').identifiers.has('oldSelf'));
  });
});

describe('toCel / fromCel', () => {
  const schema = {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      weight: { type: 'number' },
      port: { 'x-kubernetes-int-or-string': true },
      'dash-name': { type: 'string' },
      when: { type: 'string', format: 'date-time' },
      ttl: { type: 'string', format: 'duration' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      metadata: { type: 'object' },
    },
  };
  const value = {
    count: 2,
    weight: 2,
    port: 80,
    'dash-name': 'x',
    when: '2024-05-01T10:00:00Z',
    ttl: '90s',
    labels: { 'a.b/c': 'd' },
    gone: null,
    hidden: 1,
  };

  it('follows the schema for int vs double and escapes property names', () => {
    const c = toCel(value, schema) as Record<string, unknown>;
    assert.equal(c.count, 2n);
    assert.equal(c.weight, 2);
    assert.equal(c.port, 80n);
    assert.equal(c.dash__dash__name, 'x');
    assert.ok(c.when instanceof Date);
    assert.deepEqual(c.labels, { 'a.b/c': 'd' });
    assert.ok(!('gone' in c) && !('hidden' in c), 'null fields are absent and undeclared fields invisible');
    const p = compileCel(
      "self.weight * 1.5 == 3.0 && self.count + 1 == 3 && self.dash__dash__name == 'x' && self.ttl == duration('1m30s')",
    );
    assert.equal(p.evaluate({ self: c }), true);
  });
  it('without a schema every integral number is an int', () => {
    assert.deepEqual(toCel({ a: [1, 1.5, { b: 2 }] }), { a: [1n, 1.5, { b: 2n }] });
  });
  it('limits the metadata of a resource root to name and generateName', () => {
    const c = toCel(
      { apiVersion: 'v1', kind: 'X', metadata: { name: 'n', namespace: 'ns', labels: { a: 'b' } } },
      { type: 'object', properties: {} },
      { resourceRoot: true },
    );
    assert.deepEqual(c, { apiVersion: 'v1', kind: 'X', metadata: { name: 'n' } });
  });
  it('turns CEL values back into JSON', () => {
    const out = fromCel(
      compileCel("{'n': 1, 'l': [2.5, true], 't': timestamp('2024-01-01T00:00:00Z'), 'q': optional.of(3)}").evaluate(
        {},
      ),
    );
    assert.deepEqual(out, { n: 1, l: [2.5, true], t: '2024-01-01T00:00:00Z', q: 3 });
  });
});
