// Recognising failures from what a container printed last and from kubelet image-pull messages. These
// are texts written by programs (huggingface_hub, boto/S3 clients, the kernel, container runtimes), not
// API errors, so matching them is the only way to tell an expired token from a full disk.

import {
  authError,
  type CategorizedError,
  type ErrorCategory,
  missingUpstreamError,
  resourceExhaustionError,
} from '../errors.ts';

interface LogPattern {
  category: ErrorCategory;
  reason: string;
  re: RegExp;
}

// Checked in this order on each line: a 401 reported together with "Repository Not Found" (Hugging Face
// does that for gated repos) is an auth problem, not a missing model.
const LOG_PATTERNS: readonly LogPattern[] = [
  {
    category: 'Auth',
    reason: 'AuthError',
    re: /\b401\b[^\n]*(client error|unauthori[sz]ed)|\bunauthori[sz]ed\b|invalid (user )?(access )?token|invalid credentials|invalid username or password|gatedrepoerror|cannot access gated repo|access to model .* is restricted|authentication (failed|required)|token is (invalid|expired)/i,
  },
  {
    category: 'Auth',
    reason: 'AuthError',
    re: /InvalidAccessKeyId|SignatureDoesNotMatch|\bAccessDenied\b|ExpiredToken|InvalidToken|NoCredentialsError|Unable to locate credentials|\b403\b[^\n]*forbidden/i,
  },
  {
    category: 'ResourceExhaustion',
    reason: 'StorageFull',
    re: /no space left on device|disk quota exceeded|\bENOSPC\b|\bEDQUOT\b|not enough (free )?(disk )?space|insufficient (disk|storage) space/i,
  },
  {
    category: 'MissingUpstreamDependency',
    reason: 'SourceNotFound',
    re: /\b404\b[^\n]*(client error|not found)|RepositoryNotFoundError|repository not found|EntryNotFoundError|RevisionNotFoundError|\bNoSuchKey\b|\bNoSuchBucket\b|model [^\n]* (was )?not found/i,
  },
];

function construct(p: LogPattern, message: string): CategorizedError {
  if (p.category === 'Auth') return authError(p.reason, message);
  if (p.category === 'ResourceExhaustion') return resourceExhaustionError(p.reason, message);
  return missingUpstreamError(p.reason, message);
}

/**
 * The failure the last lines of a log show, judged by the most recent line that matches a known
 * pattern; undefined when nothing is recognised. `source` names where the text came from (pod/container).
 */
export function classifyLogTail(text: string | undefined, source: string): CategorizedError | undefined {
  if (!text) return undefined;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line) continue;
    for (const p of LOG_PATTERNS) {
      if (p.re.test(line)) return construct(p, `${source}: ${line.length > 500 ? `${line.slice(0, 497)}...` : line}`);
    }
  }
  return undefined;
}

const PULL_NOT_FOUND = /manifest unknown|not found|\b404\b|name unknown|no such (image|manifest)/i;
const PULL_AUTH =
  /unauthori[sz]ed|authentication required|\b401\b|\b403\b|forbidden|access (to the resource )?is denied|pull access denied|authorization failed|no basic auth credentials|insufficient_scope/i;

export type ImagePullProblem = 'auth' | 'not-found' | 'other';

/** what an ErrImagePull/ImagePullBackOff message says went wrong */
export function classifyImagePull(message: string | undefined): ImagePullProblem {
  const m = message ?? '';
  // "pull access denied, repository does not exist or may require authorization" is Docker Hub's answer
  // for both; credentials are the thing a user can check, so it counts as auth
  if (PULL_AUTH.test(m)) return 'auth';
  if (PULL_NOT_FOUND.test(m)) return 'not-found';
  return 'other';
}
