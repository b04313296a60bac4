// The built-in validations users hit most often (kube's pkg/apis/*/validation), with kube's field paths
// and messages, plus the full CustomResourceDefinition check.
import { cause, type StatusCause } from '../errors.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { checkCrd } from '../schema/index.ts';
import { labelSelectorFromObject } from '../selectors/labels.ts';
import type { KubeObject } from '../types.ts';
import { validateEndpoints } from './validate-endpoints.ts';

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

function validatePodSpec(spec: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    out.push(cause(`${path}.containers`, 'FieldValueRequired', 'Required value'));
    return out;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const co = asObj(c);
    const p = `${path}.containers[${i}]`;
    if (typeof co.name !== 'string' || co.name === '')
      out.push(cause(`${p}.name`, 'FieldValueRequired', 'Required value'));
    else if (names.has(co.name)) out.push(cause(`${p}.name`, 'FieldValueDuplicate', `Duplicate value: "${co.name}"`));
    else names.add(co.name);
    if (typeof co.image !== 'string' || co.image.trim() === '')
      out.push(cause(`${p}.image`, 'FieldValueRequired', 'Required value'));
  });
  return out;
}

function validateReplicas(spec: Obj, path: string): StatusCause[] {
  const r = spec.replicas;
  if (r === undefined) return [];
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) {
    return [
      cause(
        `${path}.replicas`,
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify(r)}: must be greater than or equal to 0`,
      ),
    ];
  }
  return [];
}

function validateWorkload(obj: KubeObject, requireSelector: boolean): StatusCause[] {
  const spec = asObj(obj.spec);
  const out = validateReplicas(spec, 'spec');
  const template = asObj(spec.template);
  const tmplLabels = asObj(asObj(template.metadata).labels) as Record<string, string>;
  if (spec.selector === undefined) {
    if (requireSelector) out.push(cause('spec.selector', 'FieldValueRequired', 'Required value'));
  } else {
    try {
      const sel = labelSelectorFromObject(spec.selector as never);
      if (sel.empty?.() && requireSelector)
        out.push(
          cause(
            'spec.selector',
            'FieldValueInvalid',
            'Invalid value: "null": empty selector is invalid for deployment',
          ),
        );
      else if (!sel.matches(tmplLabels)) {
        out.push(
          cause(
            'spec.template.metadata.labels',
            'FieldValueInvalid',
            `Invalid value: ${JSON.stringify(tmplLabels)}: \`selector\` does not match template \`labels\``,
          ),
        );
      }
    } catch (e) {
      out.push(
        cause(
          'spec.selector',
          'FieldValueInvalid',
          `Invalid value: ${JSON.stringify(spec.selector)}: ${(e as Error).message}`,
        ),
      );
    }
  }
  out.push(...validatePodSpec(asObj(template.spec), 'spec.template.spec'));
  return out;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** kube's IsConfigMapKey for ConfigMap data/binaryData and Secret data keys */
function validateConfigKeys(obj: KubeObject, fields: readonly string[]): StatusCause[] {
  const out: StatusCause[] = [];
  for (const field of fields) {
    for (const key of Object.keys(asObj(obj[field]))) {
      const invalid = (detail: string) =>
        out.push(cause(`${field}[${key}]`, 'FieldValueInvalid', `Invalid value: ${JSON.stringify(key)}: ${detail}`));
      if (key.length > 253) invalid('must be no more than 253 characters');
      if (!CONFIG_KEY.test(key)) invalid(CONFIG_KEY_MESSAGE);
      if (key === '.') invalid("must not be '.'");
      else if (key === '..') invalid("must not be '..'");
      else if (key.startsWith('..')) invalid("must not start with '..'");
    }
  }
  return out;
}

export function validateBuiltin(rt: ResourceType, obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  switch (`${rt.group}/${rt.kind}`) {
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      return checkCrd(obj, old);
    case 'apps/Deployment':
    case 'apps/ReplicaSet':
      return validateWorkload(obj, true);
    case 'batch/Job':
      return validatePodSpec(asObj(asObj(asObj(obj.spec).template).spec), 'spec.template.spec');
    case '/Pod':
      return validatePodSpec(asObj(obj.spec), 'spec');
    case '/ConfigMap':
      return validateConfigKeys(obj, ['data', 'binaryData']);
    case '/Secret':
      return validateConfigKeys(obj, ['data']);
    case '/Endpoints':
      return validateEndpoints(obj);
    case '/Service': {
      const ports = asObj(obj.spec).ports;
      const out: StatusCause[] = [];
      if (Array.isArray(ports)) {
        ports.forEach((p, i) => {
          const port = asObj(p).port;
          if (typeof port !== 'number' || port < 1 || port > 65535) {
            out.push(
              cause(
                `spec.ports[${i}].port`,
                'FieldValueInvalid',
                `Invalid value: ${JSON.stringify(port)}: must be between 1 and 65535, inclusive`,
              ),
            );
          }
        });
      }
      return out;
    }
    default:
      return [];
  }
}
