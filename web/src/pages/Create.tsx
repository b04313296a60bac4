// Create a ModelDeployment. Every change is checked by the backend with the webhooks' own functions (the
// schema, defaulting, the validation tables), so the messages shown are the ones admission would give;
// the create itself goes through the API server with the user's credentials.
import { useEffect, useMemo, useState } from 'react';
import {
  createModelDeployment,
  fetchProviders,
  resourceHref,
  useDebounced,
  type ValidationResponse,
  validateModelDeployment,
} from '../api.ts';

interface Form {
  name: string;
  namespace: string;
  source: 'huggingface' | 'custom';
  modelId: string;
  engine: string;
  image: string;
  provider: string;
  gpuCount: string;
  gpuType: string;
  cpu: string;
  memory: string;
  replicas: string;
  mode: 'aggregated' | 'disaggregated';
}

const INITIAL: Form = {
  name: '',
  namespace: 'default',
  source: 'huggingface',
  modelId: '',
  engine: 'vllm',
  image: '',
  provider: '',
  gpuCount: '1',
  gpuType: 'nvidia.com/gpu',
  cpu: '',
  memory: '',
  replicas: '1',
  mode: 'aggregated',
};
const ENGINES = ['vllm', 'sglang', 'trtllm', 'llamacpp'];

const num = (v: string): number | string | undefined =>
  v.trim() === '' ? undefined : /^-?\d+$/.test(v.trim()) ? Number(v) : v;

/** the ModelDeployment the form describes; empty fields are left out (the defaulting webhook fills them) */
export function toObject(f: Form): unknown {
  const gpuCount = num(f.gpuCount);
  const resources = {
    ...(gpuCount !== undefined ? { gpu: { count: gpuCount, type: f.gpuType } } : {}),
    ...(f.cpu ? { cpu: f.cpu } : {}),
    ...(f.memory ? { memory: f.memory } : {}),
  };
  const replicas = num(f.replicas);
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: f.name, namespace: f.namespace },
    spec: {
      model: { source: f.source, ...(f.modelId ? { id: f.modelId } : {}) },
      engine: { type: f.engine },
      ...(f.image ? { image: f.image } : {}),
      ...(f.provider ? { provider: { name: f.provider } } : {}),
      ...(Object.keys(resources).length > 0 ? { resources } : {}),
      ...(f.mode !== 'aggregated' ? { serving: { mode: f.mode } } : {}),
      ...(replicas !== undefined ? { scaling: { replicas } } : {}),
    },
  };
}

function Field({
  id,
  label,
  field,
  errors,
  children,
  hint,
}: {
  id: string;
  label: string;
  field: string;
  errors: ValidationResponse['errors'];
  children: React.ReactNode;
  hint?: string;
}) {
  const mine = errors.filter((e) => e.field === field || e.field.startsWith(`${field}.`));
  return (
    <div className={`field${mine.length ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {mine.map((e) => (
        <p key={e.message} className="error" id={`${id}-error`}>
          {e.message}
        </p>
      ))}
    </div>
  );
}

type Setter = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;

/** the form's inputs, each with the messages for its field */
/** One <option> a value, each labelled with the value itself (engines, provider names). */
function Options({ values }: { values: readonly string[] }) {
  return values.map((v) => (
    <option key={v} value={v}>
      {v}
    </option>
  ));
}

function ModelDeploymentFields({
  form,
  set,
  errors,
  providers,
}: {
  form: Form;
  set: Setter;
  errors: ValidationResponse['errors'];
  providers: string[];
}) {
  return (
    <>
      <fieldset>
        <legend>Identity</legend>
        <Field id="md-name" label="Name" field="metadata.name" errors={errors}>
          <input id="md-name" value={form.name} onChange={set('name')} autoComplete="off" />
        </Field>
        <Field id="md-namespace" label="Namespace" field="metadata.namespace" errors={errors}>
          <input id="md-namespace" value={form.namespace} onChange={set('namespace')} />
        </Field>
      </fieldset>
      <fieldset>
        <legend>Model and engine</legend>
        <Field id="md-source" label="Model source" field="spec.model.source" errors={errors}>
          <select id="md-source" value={form.source} onChange={set('source')}>
            <option value="huggingface">Hugging Face</option>
            <option value="custom">custom image</option>
          </select>
        </Field>
        <Field id="md-model" label="Model ID" field="spec.model.id" errors={errors} hint="e.g. Qwen/Qwen3-0.6B">
          <input id="md-model" value={form.modelId} onChange={set('modelId')} />
        </Field>
        <Field id="md-engine" label="Engine" field="spec.engine" errors={errors}>
          <select id="md-engine" value={form.engine} onChange={set('engine')}>
            <Options values={ENGINES} />
          </select>
        </Field>
        <Field id="md-image" label="Image (optional)" field="spec.image" errors={errors}>
          <input id="md-image" value={form.image} onChange={set('image')} />
        </Field>
        <Field id="md-provider" label="Provider" field="spec.provider" errors={errors}>
          <select id="md-provider" value={form.provider} onChange={set('provider')}>
            <option value="">automatic (CEL selection rules)</option>
            <Options values={providers} />
          </select>
        </Field>
        <Field id="md-mode" label="Serving mode" field="spec.serving" errors={errors}>
          <select id="md-mode" value={form.mode} onChange={set('mode')}>
            <option value="aggregated">aggregated</option>
            <option value="disaggregated">disaggregated</option>
          </select>
        </Field>
      </fieldset>
      <fieldset>
        <legend>Resources</legend>
        <Field id="md-gpus" label="GPUs" field="spec.resources.gpu" errors={errors} hint="empty or 0 for CPU only">
          <input id="md-gpus" inputMode="numeric" value={form.gpuCount} onChange={set('gpuCount')} />
        </Field>
        <Field id="md-gputype" label="GPU type" field="spec.resources.gpu.type" errors={errors}>
          <select id="md-gputype" value={form.gpuType} onChange={set('gpuType')}>
            <option value="nvidia.com/gpu">nvidia.com/gpu</option>
            <option value="amd.com/gpu">amd.com/gpu</option>
          </select>
        </Field>
        <Field id="md-cpu" label="CPU" field="spec.resources.cpu" errors={errors} hint="e.g. 4">
          <input id="md-cpu" value={form.cpu} onChange={set('cpu')} />
        </Field>
        <Field id="md-memory" label="Memory" field="spec.resources.memory" errors={errors} hint="e.g. 16Gi">
          <input id="md-memory" value={form.memory} onChange={set('memory')} />
        </Field>
        <Field id="md-replicas" label="Replicas" field="spec.scaling" errors={errors}>
          <input id="md-replicas" inputMode="numeric" value={form.replicas} onChange={set('replicas')} />
        </Field>
      </fieldset>
    </>
  );
}

/** the fields a "deploy" link from the catalog may fill; anything else in the link is ignored */
const PREFILLABLE = ['name', 'namespace', 'modelId', 'provider', 'gpuCount', 'gpuType'] as const;

export function initialForm(prefill: URLSearchParams | undefined): Form {
  const form = { ...INITIAL };
  for (const k of PREFILLABLE) {
    const v = prefill?.get(k);
    if (v !== null && v !== undefined) form[k] = v.slice(0, 253);
  }
  return form;
}

export function CreatePage({ prefill }: { prefill?: URLSearchParams | undefined } = {}) {
  const [form, setForm] = useState<Form>(() => initialForm(prefill));
  const [providers, setProviders] = useState<string[]>([]);
  const [result, setResult] = useState<ValidationResponse | undefined>();
  const [submitError, setSubmitError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const obj = useMemo(() => toObject(form), [form]);
  const debounced = useDebounced(obj, 250);
  useEffect(() => void fetchProviders().then(setProviders), []);
  useEffect(() => {
    if (debounced === undefined) return;
    let live = true;
    void validateModelDeployment(debounced).then((r) => live && setResult(r.body));
    return () => {
      live = false;
    };
  }, [debounced]);
  const set: Setter = (k) => (e) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const errors = result?.errors ?? [];
  const stale = debounced !== obj;
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setSubmitError(undefined);
    const r = await createModelDeployment(obj);
    setBusy(false);
    if (r.status === 201 && r.body.key) window.location.hash = resourceHref(r.body.key);
    else {
      setResult(r.body);
      setSubmitError(
        r.body.errors?.map((x) => x.message).join('; ') || r.body.error || `the API server answered ${r.status}`,
      );
    }
  };
  return (
    <>
      <h1>Create a ModelDeployment</h1>
      <p>Checked as you type with the admission webhook's own rules; nothing is created until you submit.</p>
      <form onSubmit={submit} noValidate aria-describedby="validation-summary">
        <ModelDeploymentFields form={form} set={set} errors={errors} providers={providers} />
        <div
          id="validation-summary"
          className="validation"
          aria-live="polite"
          data-state={stale || !result ? 'checking' : errors.length ? 'invalid' : 'valid'}
        >
          {!result ? (
            <p>Fill in the form; it is checked as you type.</p>
          ) : errors.length > 0 ? (
            <>
              <p>
                <strong>
                  {errors.length} {errors.length === 1 ? 'problem' : 'problems'}
                </strong>
                : the API server would reject this ModelDeployment:
              </p>
              <ul className="errors">
                {errors.map((e) => (
                  <li key={`${e.field}:${e.message}`}>{e.message}</li>
                ))}
              </ul>
            </>
          ) : (
            <p className="ok">Valid: the webhook would accept this ModelDeployment.</p>
          )}
          {result && result.warnings.length > 0 && (
            <ul className="warnings">
              {result.warnings.map((w) => (
                <li key={w}>Warning: {w}</li>
              ))}
            </ul>
          )}
        </div>
        {submitError && (
          <p className="error" role="alert">
            Not created: {submitError}
          </p>
        )}
        <button type="submit" disabled={busy || stale || !result || errors.length > 0}>
          {busy ? 'Creating…' : 'Create'}
        </button>
      </form>
      <details>
        <summary>The object that will be submitted</summary>
        <pre>{JSON.stringify(obj, null, 2)}</pre>
      </details>
    </>
  );
}
