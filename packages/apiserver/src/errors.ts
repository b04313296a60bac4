// Kubernetes `Status` errors. Every failure the API server returns is one of these, with the reason, code
// and (for 422) one cause per invalid field, exactly as kube-apiserver shapes them, because kubectl and
// client libraries branch on `reason` and print `message`.
import type { StatusDetails, StatusCause as WireCause, Status as WireStatus } from '@modelplane/apimachinery';

/** a cause the server raises always names its reason, message and field ('' for the whole object) */
export type StatusCause = Required<Pick<WireCause, 'reason' | 'message' | 'field'>>;

export type { StatusDetails };

/** the Status the server writes: every field it always sets is required */
export interface Status extends WireStatus {
  kind: 'Status';
  apiVersion: 'v1';
  /** a 410 for an expired continue token offers one that continues at the current state */
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    /** extra response headers, e.g. Retry-After */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  /** the Status's metadata.continue (a list whose continue token expired) */
  continueToken: string | undefined;

  toStatus(): Status {
    // reason is `omitempty` too: a webhook that denies without one gets none
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.continueToken ? { continue: this.continueToken } : {},
      status: 'Failure',
      message: this.message,
      ...(this.reason ? { reason: this.reason } : {}),
      code: this.code,
    } as Status;
    if (this.details) {
      // StatusDetails.group is `omitempty`: kube-apiserver leaves it out for the core group
      const { group, ...rest } = this.details;
      s.details = group ? this.details : rest;
    }
    return s;
  }
}

/** group-qualified resource as kube-apiserver prints it: `deployments.apps`, `pods`, `widgets.example.com` */
export function qualifiedResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

export const errors = {
  badRequest: (message: string) => new StatusError(400, 'BadRequest', message),
  unauthorized: () => new StatusError(401, 'Unauthorized', 'Unauthorized'),
  forbidden: (message: string, details?: StatusDetails) => new StatusError(403, 'Forbidden', message, details),
  notFound: (resource: string, group: string, name: string) =>
    new StatusError(404, 'NotFound', `${qualifiedResource(resource, group)} "${name}" not found`, {
      name,
      group,
      kind: resource,
    }),
  /** no route for the path (go-restful's 404, which names nothing) */
  notFoundPath: () => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}),
  methodNotAllowed: (message: string) => new StatusError(405, 'MethodNotAllowed', message),
  notAcceptable: (message: string) => new StatusError(406, 'NotAcceptable', message),
  alreadyExists: (resource: string, group: string, name: string) =>
    new StatusError(409, 'AlreadyExists', `${qualifiedResource(resource, group)} "${name}" already exists`, {
      name,
      group,
      kind: resource,
    }),
  conflict: (resource: string, group: string, name: string, why: string) =>
    new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${why}`,
      { name, group, kind: resource },
    ),
  /**
   * Server-side apply conflicts. Each cause is `{reason: FieldManagerConflict, message: 'conflict with "m" using v1',
   * field: '.spec.replicas'}`; the message is kube's: `Apply failed with 1 conflict: conflict with "m" using v1: .spec.replicas`,
   * or for several, per manager (in the order the causes list them): `conflicts with "m" using v1:` then `- <field>` lines.
   */
  applyConflict: (causes: StatusCause[]) => {
    let message: string;
    if (causes.length === 1) message = `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`;
    else {
      const byManager = new Map<string, string[]>();
      for (const c of causes) byManager.set(c.message, [...(byManager.get(c.message) ?? []), c.field]);
      const lines = [...byManager].flatMap(([m, fields]) => [
        `${m.replace(/^conflict with /, 'conflicts with ')}:`,
        ...fields.map((f) => `- ${f}`),
      ]);
      message = `Apply failed with ${causes.length} conflicts: ${lines.join('\n')}`;
    }
    return new StatusError(409, 'Conflict', message, { causes });
  },
  gone: (message: string) => new StatusError(410, 'Expired', message),
  requestEntityTooLarge: (message: string) => new StatusError(413, 'RequestEntityTooLarge', message),
  /** negotiation.NewUnsupportedMediaTypeError: the media types the endpoint takes, no details */
  unsupportedMediaType: (accepted: string[]) =>
    new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  /** 422 with one cause per field; message matches kube-apiserver: `<Kind> "<name>" is invalid: [a, b]` */
  invalid: (kind: string, group: string, name: string, causes: StatusCause[]) => {
    // the message names each distinct cause once, as kube's ErrorList.ToAggregate does; details keep them all
    const parts = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)))];
    const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
    // (Go's StatusDetails omits an empty name)
    return new StatusError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${joined}`, {
      ...(name ? { name } : {}),
      group,
      kind,
      causes,
    });
  },
  tooManyRequests: (message: string, retryAfterSeconds = 1) =>
    new StatusError(
      429,
      'TooManyRequests',
      message,
      { retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    ),
  internal: (message: string) =>
    new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ reason: 'UnexpectedServerResponse', message, field: '' }],
    }),
  /** an error the storage layer returns as a plain Go error: kube-apiserver answers 500 with no reason */
  storage: (message: string) => new StatusError(500, '', message),
  serviceUnavailable: (message: string) => new StatusError(503, 'ServiceUnavailable', message),
  timeout: (message: string) => new StatusError(504, 'Timeout', message),
};

/** A field-level problem found by validation; turned into a 422 by the handler that knows the kind and name. */
export function cause(field: string, reason: string, message: string): StatusCause {
  return { reason, message, field };
}
