// Per-request facts the write paths need, decoded once from the query string and headers.
import type { UserInfo } from '../types.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface RequestContext {
  user: UserInfo;
  dryRun: boolean;
  fieldManager?: string;
  fieldValidation: FieldValidation;
  /** collected `Warning` response headers (kubectl prints them) */
  warnings: string[];
  /** annotations admission adds to the request's audit record */
  auditAnnotations?: Record<string, string>;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}
