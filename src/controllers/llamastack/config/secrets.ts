// Secret references → environment variables (docs/llamastack.md, "Secrets"). A value the server needs from
// a Secret is written into config.yaml as `${env.NAME}` and the container gets NAME from a secretKeyRef,
// so no secret value ever reaches the ConfigMap. NAME is LLSD_<PROVIDER_ID>_<FIELD>.
import { ConfigGenerationError } from './errors.ts';

export interface SecretRefUse {
  env: string;
  secret: string;
  key: string;
  /** where the reference is written, e.g. spec.providers.inference[0].apiKey */
  field: string;
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** `vllm-primary` → `VLLM_PRIMARY`, `apiKey` → `API_KEY`, `api-key` → `API_KEY` */
export function envSegment(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export function secretEnvName(providerId: string, field: string): string {
  return `LLSD_${envSegment(providerId)}_${envSegment(field)}`;
}

/** collects references; two different references that normalise to one name are an error */
export class SecretCollector {
  private readonly byEnv = new Map<string, SecretRefUse>();

  add(use: SecretRefUse): string {
    if (!ENV_NAME.test(use.env)) {
      throw new ConfigGenerationError(
        'ConfigGenerationFailed',
        `${use.field}: the environment variable name ${use.env} derived from it is not valid; use letters, digits, "-" and "_" in provider ids and secret fields`,
        use.field,
      );
    }
    const seen = this.byEnv.get(use.env);
    if (seen && (seen.secret !== use.secret || seen.key !== use.key)) {
      throw new ConfigGenerationError(
        'ConfigGenerationFailed',
        `${use.field} and ${seen.field} both map to environment variable ${use.env} but reference different secrets (${use.secret}/${use.key} and ${seen.secret}/${seen.key}): give the providers ids that differ after upper-casing and replacing "-" with "_"`,
        use.field,
      );
    }
    if (!seen) this.byEnv.set(use.env, use);
    return `\${env.${use.env}}`;
  }

  /** every reference, sorted by variable name */
  list(): SecretRefUse[] {
    return [...this.byEnv.values()].sort((a, b) => (a.env < b.env ? -1 : a.env > b.env ? 1 : 0));
  }
}
