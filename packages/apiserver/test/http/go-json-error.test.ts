// Go's encoding/json syntax errors, word for word, for the texts kube-apiserver quotes them for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goJsonSyntaxError } from '../../src/http/go-json-error.ts';

const cases: Array<[string, string, string | undefined]> = [
  ['valid object', '{"a": [1, -2.5e3, true, null, "x\\u00e9"]}', undefined],
  ['empty input', '', 'unexpected end of JSON input'],
  ['cut short after a key', '{"apiVersion": "v1", "kind": ', 'unexpected end of JSON input'],
  ['cut short in a string', '{"a": "b', 'unexpected end of JSON input'],
  ['a key without quotes', '{not json', "invalid character 'n' looking for beginning of object key string"],
  ['a word that is almost null', 'not-a-token', "invalid character 'o' in literal null (expecting 'u')"],
  ['an unfinished true', '{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
  ['no colon after a key', '{"a" 1}', "invalid character '1' after object key"],
  ['no comma between members', '{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
  ['no comma between elements', '[1 2]', "invalid character '2' after array element"],
  ['a leading zero', '01', "invalid character '1' after top-level value"],
  ['two values', '{} {}', "invalid character '{' after top-level value"],
  ['a trailing comma', '[1,]', "invalid character ']' looking for beginning of value"],
  ['a single quote', "{'a': 1}", "invalid character '\\'' looking for beginning of object key string"],
  ['a control character in a string', '"a\u0001"', "invalid character '\\x01' in string literal"],
  ['a newline in a string', '"a\nb"', "invalid character '\\n' in string literal"],
  ['a bad escape', '"\\q"', "invalid character 'q' in string escape code"],
  ['a bad unicode escape', '"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
  ['a minus alone', '-x', "invalid character 'x' in numeric literal"],
  ['a dot without digits', '1.x', "invalid character 'x' after decimal point in numeric literal"],
  ['an exponent without digits', '1e+', 'unexpected end of JSON input'],
  ['a plus sign', '+1', "invalid character '+' looking for beginning of value"],
];

describe("Go's JSON syntax errors", () => {
  for (const [name, text, want] of cases) it(name, () => assert.equal(goJsonSyntaxError(text), want));
});
