// The 403 kube-apiserver writes when authorization denies a request (responsewriters.Forbidden +
// apierrors.NewForbidden), e.g. `configmaps is forbidden: User "system:serviceaccount:ns:sa" cannot list
// resource "configmaps" in API group "" in the namespace "ns"`. kubectl prints the message verbatim.
import { errors, type StatusDetails, type StatusError } from '../errors.ts';
import type { UserInfo } from '../types.ts';
import { goQuote } from '../validation/field-errors.ts';
import type { AuthzAttributes } from './types.ts';

/** responsewriters.forbiddenMessage */
export function forbiddenMessage(user: UserInfo | undefined, a: AuthzAttributes): string {
  const who = goQuote(user?.username ?? '');
  if (!a.isResourceRequest) return `User ${who} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : (a.resource ?? '');
  const scope = a.namespace ? `in the namespace ${goQuote(a.namespace)}` : 'at the cluster scope';
  return `User ${who} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.group)} ${scope}`;
}

export function forbidden(user: UserInfo | undefined, a: AuthzAttributes, reason = ''): StatusError {
  const err = reason ? `${forbiddenMessage(user, a)}: ${reason}` : forbiddenMessage(user, a);
  const resource = a.isResourceRequest ? (a.resource ?? '') : '';
  const group = a.isResourceRequest ? a.group : '';
  const name = a.isResourceRequest ? (a.name ?? '') : '';
  let message: string;
  if (!resource && !group) message = `forbidden: ${err}`;
  else {
    const qualified = group ? `${resource}.${group}` : resource;
    message = name ? `${qualified} ${goQuote(name)} is forbidden: ${err}` : `${qualified} is forbidden: ${err}`;
  }
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return errors.forbidden(message, details);
}
