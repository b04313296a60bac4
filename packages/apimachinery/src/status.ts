// metav1.Status: the body of every failed API request and of a watch ERROR event. Clients branch on
// `reason` and `code` and print `message`; for 422 `details.causes` names each invalid field.

export interface StatusCause {
  /** e.g. FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, FieldManagerConflict */
  reason?: string;
  message?: string;
  /** the field path as kube writes it, e.g. `spec.replicas` or `metadata.labels[app]` */
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  metadata?: Record<string, unknown>;
  status?: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** the StatusReason kube uses for an HTTP code when the body names none */
export function reasonForCode(code: number): string {
  return REASONS[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

export function isStatus(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as Status).kind === 'Status';
}
