// A ModelDeployment's name becomes part of the names of what its provider (and the provider's operator)
// creates: KubeRay's `<name>-serve-svc` Service, Dynamo's `<name>-vllmdecodeworker`, the storage download
// Job `<name>-model-download`. Services, Jobs and label values are DNS labels of at most 63 characters, so a
// name that makes any of them longer is refused at admission, naming the limit, instead of failing later
// inside an operator (docs/kubeairunway.md, "Names").
import type { ModelDeploymentSpec } from '../../../apis/kubeairunway/index.ts';
import type { ValidationIssue } from './types.ts';

export const DNS_LABEL_MAX = 63;

/**
 * the longest child of each built-in provider, as `<name><suffix>` (what creates it, for the message), for
 * the deployment's serving mode: Dynamo's prefill worker exists only in disaggregated mode
 */
export const PROVIDER_CHILD_SUFFIXES: Readonly<
  Record<string, Record<'aggregated' | 'disaggregated', { suffix: string; what: string }>>
> = {
  kaito: both({ suffix: '-headless', what: "KAITO's headless Service" }),
  dynamo: {
    aggregated: { suffix: '-vllmworker', what: "Dynamo's worker Service" },
    disaggregated: { suffix: '-vllmprefillworker', what: "Dynamo's prefill worker Service" },
  },
  kuberay: both({ suffix: '-serve-svc', what: "KubeRay's Serve Service" }),
  aim: both({ suffix: '-predictor', what: "KServe's predictor Service" }),
  llmd: both({ suffix: '-epp', what: "the llm-d endpoint picker's Service" }),
};

function both(child: { suffix: string; what: string }) {
  return { aggregated: child, disaggregated: child };
}

/** the managed model-download Job (spec.model.storage) */
export const DOWNLOAD_JOB_SUFFIX = '-model-download';

function longestChild(spec: ModelDeploymentSpec): { suffix: string; what: string } {
  const provider = spec.provider?.name;
  const mode = spec.serving?.mode === 'disaggregated' ? 'disaggregated' : 'aggregated';
  const known = provider ? PROVIDER_CHILD_SUFFIXES[provider]?.[mode] : undefined;
  // not chosen yet: whichever provider the core picks must fit
  const candidates = known
    ? [known]
    : provider
      ? []
      : Object.values(PROVIDER_CHILD_SUFFIXES).map((children) => children[mode]);
  if (spec.model?.storage?.volumes?.some((v) => v.size !== undefined))
    candidates.push({ suffix: DOWNLOAD_JOB_SUFFIX, what: 'the model download Job' });
  return candidates.reduce((a, b) => (b.suffix.length > a.suffix.length ? b : a), { suffix: '', what: 'its Service' });
}

/** the name's own limit, and the limit its longest child puts on it */
export function validateChildNames(name: string | undefined, spec: ModelDeploymentSpec): ValidationIssue[] {
  if (!name) return [];
  const child = longestChild(spec);
  const max = DNS_LABEL_MAX - child.suffix.length;
  if (name.length <= max) return [];
  const example = `${name}${child.suffix}`;
  return [
    {
      field: 'metadata.name',
      message:
        `metadata.name "${name}" is ${name.length} characters, more than the ${max} allowed: ${child.what} is named "${example}" (${example.length} characters), ` +
        `and such names are DNS labels of at most ${DNS_LABEL_MAX} characters; choose a name of at most ${max} characters`,
    },
  ];
}
