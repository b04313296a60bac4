// The form's messages in the API server's own words: the ModelDeployment the form describes is created with
// `dryRun=All`, so the CRD schema, the admission webhooks and the server's own checks answer exactly as they
// would on Create (`spec.model.id: Required value`, not a schema library's phrasing). The schema's refusals
// (422 with causes) replace the local schema messages; a webhook's denial already reads as the local checks
// do (they are the webhooks' own functions), and when the API server cannot be asked (no create permission,
// unreachable) or accepts, the local checks of validate.ts stand.
import { ApiError, type KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { ValidationResponse } from './types.ts';
import { formObject } from './validate.ts';

/** the local checks' shape errors (another kind, extra fields) stand: those bodies never reach the API server */
const SHAPE_FIELDS = /^(kind|apiVersion|metadata\.(?!name$|namespace$).+|[^.]+)$/;

export async function withApiServerWording(
  local: ValidationResponse,
  input: unknown,
  client: KubeClient,
): Promise<ValidationResponse & { source: 'api-server' | 'local' }> {
  // nothing to reword, or a body that never reaches the API server (another kind, extra fields)
  if (
    local.errors.length === 0 ||
    local.errors.some((e) => SHAPE_FIELDS.test(e.field) && !e.field.startsWith('spec') && e.field !== '')
  )
    return { ...local, source: 'local' };
  try {
    await client.withFieldManager('modelplane-dashboard').create(formObject(input) as unknown as KubeObject, {
      dryRun: true,
    });
    return { ...local, source: 'local' };
  } catch (err) {
    if (!(err instanceof ApiError) || (err.code !== 422 && err.code !== 400)) return { ...local, source: 'local' };
    // what the schema said, plus the local checks of fields it did not speak about (metadata, the webhooks')
    const causes = err.details?.causes ?? [];
    const errors =
      causes.length > 0
        ? causes.map((c) => ({
            field: c.field ?? '',
            message: c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? ''),
          }))
        : [{ field: '', message: err.message.replace(/^\S+ \S+: /, '') }];
    const named = new Set(errors.map((e) => e.field));
    const rest = local.errors.filter((e) => !e.field.startsWith('spec') && !named.has(e.field));
    return { ...local, errors: [...errors, ...rest], source: 'api-server' };
  }
}
