// The Kubernetes CEL environment on top of cel-js: optional types on, heterogeneous list literals allowed
// (as in kube), undeclared identifiers rejected at compile time, and the libraries kube adds (strings ext,
// lists, sets, regex via RE2, quantity, IP/CIDR, URL, semver). Building one costs milliseconds, so there is
// one base environment per set of parse limits and one child per set of declared variables, both cached.

import { Environment } from '@marcbachmann/cel-js';
import type { CelLimits } from './limits.ts';
import { registerListsLibrary } from './lists.ts';
import { registerNetLibrary } from './net.ts';
import { registerQuantityLibrary } from './quantity-lib.ts';
import { registerRegexLibrary } from './regex.ts';
import { registerSemverLibrary } from './semver.ts';
import { registerStringsLibrary } from './strings.ts';
import { registerURLLibrary } from './url.ts';

/** a variable the expression may reference; `type` is a CEL type such as 'dyn' (default) or 'optional<dyn>' */
export interface CelVariable {
  name: string;
  type?: string;
}

type ParseLimits = Pick<CelLimits, 'maxAstNodes' | 'maxDepth'>;

const baseEnvironments = new Map<string, Environment>();
const variableEnvironments = new Map<string, Environment>();

function baseEnvironment(limits: ParseLimits): Environment {
  const key = `${limits.maxAstNodes}/${limits.maxDepth}`;
  let env = baseEnvironments.get(key);
  if (env) return env;
  env = new Environment({
    unlistedVariablesAreDyn: false,
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: {
      maxAstNodes: limits.maxAstNodes,
      maxDepth: limits.maxDepth,
      maxListElements: 1000,
      maxMapEntries: 1000,
      maxCallArguments: 32,
    },
  });
  registerRegexLibrary(env);
  registerStringsLibrary(env);
  registerListsLibrary(env);
  registerQuantityLibrary(env);
  registerNetLibrary(env);
  registerURLLibrary(env);
  registerSemverLibrary(env);
  baseEnvironments.set(key, env);
  return env;
}

export function normalizeVariables(variables: ReadonlyArray<string | CelVariable>): CelVariable[] {
  return variables.map((v) =>
    typeof v === 'string' ? { name: v, type: 'dyn' } : { name: v.name, type: v.type ?? 'dyn' },
  );
}

export function variablesKey(variables: CelVariable[]): string {
  return variables.map((v) => `${v.name}:${v.type}`).join(',');
}

/** the environment declaring exactly `variables` */
export function environmentFor(variables: CelVariable[], limits: ParseLimits): Environment {
  const key = `${limits.maxAstNodes}/${limits.maxDepth}|${variablesKey(variables)}`;
  let env = variableEnvironments.get(key);
  if (env) return env;
  env = baseEnvironment(limits).clone();
  for (const v of variables) env.registerVariable(v.name, v.type ?? 'dyn');
  variableEnvironments.set(key, env);
  return env;
}
