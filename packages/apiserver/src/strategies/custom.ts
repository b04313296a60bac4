// Strategy for custom resources: prune, default and validate with the CRD version's structural schema
// (OpenAPI constraints and x-kubernetes-validations CEL rules), and the schema's list/map types for
// server-side apply. Compiled once per CRD version and reused.
import type { TypeStrategy } from '../objects/strategy.ts';
import { schemaFromOpenAPI } from '../patch/index.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { compileCrdVersionValidator } from '../schema/index.ts';

export function customStrategy(rt: ResourceType): TypeStrategy {
  const validators = new Map<string, ReturnType<typeof compileCrdVersionValidator>>();
  const patchSchemas = new Map<string, unknown>();
  const validator = (version: string) => {
    let v = validators.get(version);
    if (!v) {
      const schema = rt.versions.find((x) => x.name === version)?.schema ?? {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      };
      v = compileCrdVersionValidator(schema);
      validators.set(version, v);
    }
    return v;
  };
  return {
    strategicMerge: false,
    prune: (obj, version) => validator(version).prune(obj),
    applyDefaults: (obj, version) => validator(version).default(obj),
    validate: (obj, old, version) => validator(version).validate(obj, old),
    patchSchema: (version) => {
      let s = patchSchemas.get(version);
      if (!s) {
        const schema = rt.versions.find((x) => x.name === version)?.schema;
        s = schemaFromOpenAPI(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
        patchSchemas.set(version, s);
      }
      return s;
    },
  };
}
