import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  convertFieldLabel,
  convertFieldSelector,
  escapeFieldValue,
  FieldSelectorError,
  type FieldSelectorTarget,
  fieldValue,
  parseFieldSelector,
  supportedFieldLabels,
} from '../src/selectors/fields.ts';
import {
  formatLabelSelector,
  formatLabels,
  LabelSelector,
  LabelSelectorError,
  labelSelectorFromObject,
  parseLabelSelector,
  selectorFromSet,
} from '../src/selectors/labels.ts';

const QUALIFIED_NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('label selector parsing: normalised String() form', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a==b'],
    ['a!=b', 'a!=b'],
    ['a', 'a'],
    ['!a', '!a'],
    ['a>1', 'a>1'],
    ['a<3', 'a<3'],
    [' a = b ', 'a=b'],
    ['\ta in ( y , x )\n', 'a in (x,y)'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['a in (b,b,a)', 'a in (a,b)'],
    ['z=1,a=2,m', 'a=2,m,z=1'],
    ['a=', 'a='],
    ['a=,b', 'a=,b'],
    ['in in (in,notin)', 'in in (in,notin)'],
    ['example.com/team notin (x)', 'example.com/team notin (x)'],
    ['a in (,)', 'a in ()'],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.equal(parseLabelSelector(input).toString(), want));
  }
});

describe('label selector parsing: kube error messages', () => {
  const cases: [string, string][] = [
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a===b', "unable to parse requirement: found '=', expected: identifier"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in =', "unable to parse requirement: found '=' expected: '('"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
    [
      'a>b',
      "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer",
    ],
    ['a_=b', `unable to parse requirement: <nil>: Invalid value: "a_": name part ${QUALIFIED_NAME_RULE}`],
    ['a=b_', `unable to parse requirement: values[0][a]: Invalid value: "b_": ${LABEL_VALUE_RULE}`],
    ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
    [
      'a/b/c',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${QUALIFIED_NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () =>
      assert.throws(
        () => parseLabelSelector(input),
        (e: unknown) => e instanceof LabelSelectorError && e.message === message,
      ),
    );
  }
});

describe('label selector matching', () => {
  const labels = { app: 'web', tier: 'front', n: '5', s: 'x5' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['missing in (x)', false],
    ['app notin (db)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['n>4', true],
    ['n>5', false],
    ['n<6', true],
    ['missing>1', false],
    ['s>1', false],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    ['missing=', false],
  ];
  for (const [selector, want] of cases) {
    it(`${selector || '(empty)'} → ${want}`, () => assert.equal(parseLabelSelector(selector).matches(labels), want));
  }
  it('treats undefined labels as an empty set', () => {
    assert.equal(parseLabelSelector('!a').matches(undefined), true);
    assert.equal(parseLabelSelector('a').matches(undefined), false);
  });
});

describe('metav1.LabelSelector objects', () => {
  it('null selects nothing, {} selects everything', () => {
    assert.equal(labelSelectorFromObject(null).matches({ a: 'b' }), false);
    assert.equal(labelSelectorFromObject(null).empty(), false);
    assert.equal(labelSelectorFromObject({}).matches({ a: 'b' }), true);
    assert.equal(labelSelectorFromObject({}).empty(), true);
  });
  it('combines matchLabels and matchExpressions, sorted by key', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { z: '1', app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'b', operator: 'Exists' },
      ],
    });
    assert.equal(sel.toString(), 'app=web,b,!canary,env notin (prod),tier in (a,b),z=1');
    assert.equal(sel.matches({ app: 'web', z: '1', tier: 'a', b: '' }), true);
    assert.equal(sel.matches({ app: 'web', z: '1', tier: 'a', b: '', canary: 'y' }), false);
  });
  const errors: [Parameters<typeof labelSelectorFromObject>[0], string][] = [
    [
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      '"Gt" is not a valid label selector operator',
    ],
    [{ matchLabels: { 'bad key': 'v' } }, `key: Invalid value: "bad key": name part ${QUALIFIED_NAME_RULE}`],
  ];
  for (const [obj, message] of errors) {
    it(`rejects ${JSON.stringify(obj)}`, () => assert.throws(() => labelSelectorFromObject(obj), { message }));
  }
  it('formats like metav1.FormatLabelSelector and labels.FormatLabels', () => {
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({ matchLabels: { app: 'x' } }), 'app=x');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '<error>');
    assert.equal(formatLabels({}), '<none>');
    assert.equal(formatLabels({ b: '2', 'a.b': '1', a: '3' }), 'a.b=1,a=3,b=2');
  });
  it('selectorFromSet and requiresExactMatch', () => {
    const sel = selectorFromSet({ b: '2', a: '1' });
    assert.equal(sel.toString(), 'a=1,b=2');
    assert.equal(sel.requiresExactMatch('a'), '1');
    assert.equal(parseLabelSelector('a in (x)').requiresExactMatch('a'), 'x');
    assert.equal(parseLabelSelector('a in (x,y)').requiresExactMatch('a'), undefined);
    assert.equal(parseLabelSelector('a!=x').requiresExactMatch('a'), undefined);
    assert.equal(LabelSelector.everything().matches({}), true);
  });
});

describe('field selectors', () => {
  const parseCases: [string, string][] = [
    ['', ''],
    ['metadata.name=x', 'metadata.name=x'],
    ['metadata.name==x', 'metadata.name=x'],
    ['metadata.namespace!=y,metadata.name=x', 'metadata.name=x,metadata.namespace!=y'],
    ['a=b\\,c', 'a=b\\,c'],
    ['a=b\\=c\\\\', 'a=b\\=c\\\\'],
    ['a=', 'a='],
    [',a=b,', 'a=b'],
  ];
  for (const [input, want] of parseCases) {
    it(`parses ${JSON.stringify(input)}`, () => assert.equal(parseFieldSelector(input).toString(), want));
  }
  it('unescapes values', () => {
    assert.deepEqual(parseFieldSelector('a=b\\,c\\=d\\\\').requirements, [
      { field: 'a', operator: '=', value: 'b,c=d\\' },
    ]);
    assert.equal(escapeFieldValue('b,c=d\\'), 'b\\,c\\=d\\\\');
  });
  const errorCases: [string, string][] = [
    ['metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ['b=1,a', "invalid selector: 'b=1,a'; can't understand 'a'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  for (const [input, message] of errorCases) {
    it(`rejects ${JSON.stringify(input)}`, () =>
      assert.throws(
        () => parseFieldSelector(input),
        (e: unknown) => e instanceof FieldSelectorError && e.message === message,
      ));
  }
  it('matches with missing fields reading as empty', () => {
    const pod = {
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n1' },
      status: { phase: 'Running' },
    };
    const cases: [string, boolean][] = [
      ['metadata.name=p', true],
      ['metadata.name=q', false],
      ['metadata.namespace!=other', true],
      ['spec.nodeName=n1,status.phase=Running', true],
      ['spec.nodeName=', false],
      ['status.nominatedNodeName=', true],
      ['spec.hostNetwork=false', true],
    ];
    for (const [sel, want] of cases) assert.equal(parseFieldSelector(sel).matchesObject(pod), want, sel);
  });
});

describe('field selector support per kind', () => {
  const accepted: [FieldSelectorTarget, string][] = [
    [{ group: 'apps', kind: 'Deployment' }, 'metadata.name'],
    [{ group: 'apps', kind: 'Deployment' }, 'metadata.namespace'],
    [{ group: '', kind: 'Pod' }, 'spec.nodeName'],
    [{ group: '', kind: 'Pod' }, 'status.podIP'],
    [{ group: '', kind: 'Pod' }, 'spec.serviceAccountName'],
    [{ group: '', kind: 'Event' }, 'involvedObject.uid'],
    [{ group: '', kind: 'Event' }, 'reportingComponent'],
    [{ group: '', kind: 'Secret' }, 'type'],
    [{ group: '', kind: 'Node' }, 'spec.unschedulable'],
    [{ group: '', kind: 'Namespace' }, 'status.phase'],
    [{ group: 'batch', kind: 'Job' }, 'status.successful'],
    [{ group: 'apps', kind: 'ReplicaSet' }, 'status.replicas'],
    [{ group: '', kind: 'Service' }, 'spec.type'],
    [
      { group: 'x.io', kind: 'W', customResource: { namespaced: true, selectableFields: ['.spec.color'] } },
      'spec.color',
    ],
    [{ group: 'x.io', kind: 'W', customResource: { namespaced: true } }, 'metadata.namespace'],
  ];
  for (const [target, label] of accepted) {
    it(`${target.group}/${target.kind} accepts ${label}`, () => assert.equal(convertFieldLabel(target, label), label));
  }
  const rejected: [FieldSelectorTarget, string, string][] = [
    [{ group: '', kind: 'Pod' }, 'spec.foo', 'field label not supported: spec.foo'],
    [
      { group: 'apps', kind: 'Deployment' },
      'spec.replicas',
      '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [{ group: '', kind: 'Node' }, 'metadata.namespace', 'field label not supported: metadata.namespace'],
    [
      { group: 'x.io', kind: 'W', customResource: { namespaced: false } },
      'metadata.namespace',
      'field label not supported: metadata.namespace',
    ],
    [
      { group: 'x.io', kind: 'W', customResource: { namespaced: true, selectableFields: ['.spec.color'] } },
      'spec.size',
      'field label not supported: spec.size',
    ],
  ];
  for (const [target, label, message] of rejected) {
    it(`${target.group}/${target.kind} rejects ${label}`, () =>
      assert.throws(() => convertFieldLabel(target, label), { message }));
  }
  it('maps aliases the way kube converts them', () => {
    assert.equal(convertFieldLabel({ group: '', kind: 'Pod' }, 'spec.host'), 'spec.nodeName');
    assert.equal(convertFieldLabel({ group: 'events.k8s.io', kind: 'Event' }, 'regarding.name'), 'involvedObject.name');
    const sel = convertFieldSelector(parseFieldSelector('spec.host=n1'), { group: '', kind: 'Pod' });
    assert.equal(sel.toString(), 'spec.nodeName=n1');
  });
  it('lists supported labels', () => {
    assert.deepEqual(supportedFieldLabels({ group: '', kind: 'Secret' }), [
      'metadata.name',
      'metadata.namespace',
      'type',
    ]);
    assert.deepEqual(
      supportedFieldLabels({
        group: 'x.io',
        kind: 'W',
        customResource: { namespaced: false, selectableFields: ['.spec.a'] },
      }),
      ['metadata.name', 'spec.a'],
    );
  });
});

describe('fieldValue', () => {
  const cases: [string, unknown, string, string][] = [
    [
      'pod IP from podIPs',
      { kind: 'Pod', status: { podIPs: [{ ip: '10.0.0.2' }], podIP: '10.0.0.9' } },
      'status.podIP',
      '10.0.0.2',
    ],
    ['pod IP fallback', { kind: 'Pod', status: { podIP: '10.0.0.9' } }, 'status.podIP', '10.0.0.9'],
    ['hostNetwork default', { kind: 'Pod', spec: {} }, 'spec.hostNetwork', 'false'],
    ['hostNetwork set', { kind: 'Pod', spec: { hostNetwork: true } }, 'spec.hostNetwork', 'true'],
    ['node unschedulable default', { kind: 'Node' }, 'spec.unschedulable', 'false'],
    ['job successful', { kind: 'Job', status: { succeeded: 3 } }, 'status.successful', '3'],
    ['job successful default', { kind: 'Job' }, 'status.successful', '0'],
    ['replicaset replicas', { kind: 'ReplicaSet', status: { replicas: 2 } }, 'status.replicas', '2'],
    ['event source', { kind: 'Event', source: { component: 'kubelet' } }, 'source', 'kubelet'],
    ['events.k8s.io regarding', { kind: 'Event', regarding: { name: 'p' } }, 'involvedObject.name', 'p'],
    ['event reportingController', { kind: 'Event', reportingController: 'c' }, 'reportingComponent', 'c'],
    ['custom resource string', { kind: 'W', spec: { color: 'red' } }, 'spec.color', 'red'],
    ['custom resource bool', { kind: 'W', spec: { on: true } }, 'spec.on', 'true'],
    ['custom resource integer', { kind: 'W', spec: { size: 3 } }, 'spec.size', '3'],
    ['missing', { kind: 'W' }, 'spec.color', ''],
    ['object value', { kind: 'W', spec: { color: { a: 1 } } }, 'spec.color', ''],
  ];
  for (const [name, obj, field, want] of cases) it(name, () => assert.equal(fieldValue(obj, field), want));
});
