// OCI image references as container runtimes accept them (the distribution/reference grammar):
//   [domain[:port]/]path-component[/path-component...][:tag][@algorithm:hex]
// Checked before anything is created from `spec.image`, so a typo shows on the object that holds it
// instead of as an ImagePullBackOff on a pod much later. Every pattern is linear (no nested repetition
// over the same characters) and the input length is capped first, so user input cannot make it slow.

export const MAX_IMAGE_REFERENCE_LENGTH = 4096;
/** distribution's limit on the repository name (domain and path, without tag or digest) */
export const MAX_IMAGE_NAME_LENGTH = 255;

export interface ImageReference {
  /** registry host, with port; undefined when the reference names none (docker.io is implied) */
  domain?: string;
  /** the repository path, e.g. `amdenterpriseai/aim-qwen-qwen3-32b` */
  path: string;
  tag?: string;
  digest?: string;
}

export type ImageReferenceResult = { ok: true; reference: ImageReference } | { ok: false; message: string };

const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|-+)';
const PATH_COMPONENT = new RegExp(`^${ALNUM}(?:${SEPARATOR}${ALNUM})*$`);
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*):([0-9a-fA-F]{32,})$/;
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** Parses `image`; the failure message says what is wrong, for a condition that names the field. */
export function parseImageReference(image: string): ImageReferenceResult {
  if (typeof image !== 'string' || image.trim() === '') return fail('must not be empty');
  if (image.length > MAX_IMAGE_REFERENCE_LENGTH)
    return fail(`is ${image.length} characters, more than ${MAX_IMAGE_REFERENCE_LENGTH}`);
  if (/\s/.test(image)) return fail('must not contain whitespace');
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(image))
    return fail('must not include a URL scheme (write registry/repository:tag)');

  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    const problem = digestProblem(digest);
    if (problem) return fail(problem);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag))
      return fail(
        `tag ${JSON.stringify(tag)} is invalid (up to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-')`,
      );
  }
  if (rest === '') return fail('has no repository name');
  if (rest.length > MAX_IMAGE_NAME_LENGTH)
    return fail(`repository name is ${rest.length} characters, more than ${MAX_IMAGE_NAME_LENGTH}`);

  const parts = rest.split('/');
  let domain: string | undefined;
  // the first part is a registry when it looks like a host (has a dot or port) or is localhost, as runtimes decide
  if (parts.length > 1 && (/[.:]/.test(parts[0]!) || parts[0] === 'localhost' || parts[0]!.startsWith('['))) {
    domain = parts.shift()!;
    if (!DOMAIN.test(domain)) return fail(`registry ${JSON.stringify(domain)} is not a valid host[:port]`);
  }
  for (const part of parts) {
    if (part === '') return fail('repository path has an empty component ("//" or a leading or trailing "/")');
    if (/[A-Z]/.test(part)) return fail(`repository name must be lowercase (${JSON.stringify(part)})`);
    if (!PATH_COMPONENT.test(part)) {
      return fail(
        `repository path component ${JSON.stringify(part)} is invalid (lowercase letters and digits, separated by '.', '_', '__' or '-')`,
      );
    }
  }
  const reference: ImageReference = { path: parts.join('/') };
  if (domain !== undefined) reference.domain = domain;
  if (tag !== undefined) reference.tag = tag;
  if (digest !== undefined) reference.digest = digest;
  return { ok: true, reference };
}

function digestProblem(digest: string): string | undefined {
  const m = DIGEST.exec(digest);
  if (!m) return `digest ${JSON.stringify(digest)} is invalid (expected algorithm:hex, e.g. sha256:<64 hex digits>)`;
  const want = DIGEST_HEX_LENGTH[m[1]!];
  if (want !== undefined && m[2]!.length !== want)
    return `digest ${JSON.stringify(digest)} is invalid: ${m[1]} needs ${want} hex digits, not ${m[2]!.length}`;
  return undefined;
}

function fail(message: string): ImageReferenceResult {
  return { ok: false, message };
}
