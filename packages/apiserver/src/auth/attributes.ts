// The attributes a request is authorized with. Like kube's RequestInfoFactory, a list or watch pinned
// to one object by `fieldSelector=metadata.name=<name>` is authorized as that name, so a single-object
// informer works under a `resourceNames` rule (leader election, a watched ConfigMap).
import type { RequestInfo } from '../http/request-info.ts';
import { parseFieldSelector } from '../selectors/fields.ts';
import type { AuthzAttributes } from './types.ts';

export function authorizationAttributes(info: RequestInfo, query: URLSearchParams): AuthzAttributes {
  if (!info.isResourceRequest || info.name || (info.verb !== 'list' && info.verb !== 'watch')) return info;
  const selector = query.get('fieldSelector');
  if (!selector) return info;
  let name: string | undefined;
  try {
    name = parseFieldSelector(selector).requiresExactMatch('metadata.name');
  } catch {
    return info; // the list handler reports the malformed selector
  }
  // path.IsValidPathSegmentName: what could not appear as a name in a URL is not used as one
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('%')) return info;
  return { ...info, name };
}
