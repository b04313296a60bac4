/**
 * Kubernetes JSONPath (the template dialect of `kubectl -o jsonpath=...`, custom-columns and CRD
 * additionalPrinterColumns): a port of client-go util/jsonpath that reproduces kubectl's output byte for byte,
 * checked against kubectl 1.32 by test/jsonpath-conformance.integration.test.ts (in this package).
 *
 * Behaviours kept on purpose because kubectl has them: `{.labels['a.b']}` prints nothing (the bracketed key is
 * re-split on dots; write `{.labels.a\.b}`), `["a"]` is a parse error, missing keys print nothing unless
 * allowMissingKeys is false, `[0]` on an empty list is an error.
 */
export type { JsonPathNode, JsonPathTemplate } from './ast.ts';
export { JsonPathError } from './errors.ts';
export {
  executeJsonPath,
  findJsonPathResults,
  type JsonPathOptions,
  parseJsonPath,
  relaxedJsonPath,
} from './execute.ts';
export { customColumnText, printerColumnCell, printerColumnValue } from './printer-column.ts';
