// CRD parts outside the schema, checked like kube-apiserver does: the scale subresource's JSON paths,
// additionalPrinterColumns, and the conversion strategy with its webhook client config
// (apiextensions validation.go and k8s.io/apiserver/pkg/util/webhook/validation.go).
import type { StatusCause } from '../errors.ts';
import { fieldError, RenderedValue } from './field-errors.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors } from './object-meta.ts';
import type { CustomResourceColumnDefinition, CustomResourceConversion, CustomResourceSubresources } from './types.ts';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const URL_FORM = '; desired format: https://host[/path]';

function simpleJsonPathErrors(s: string, path: string): StatusCause[] {
  if (s === '') return [fieldError.invalid(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [fieldError.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

export function checkSubresources(sub: CustomResourceSubresources | undefined, path: string): StatusCause[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const out: StatusCause[] = [];
  const spec = `${path}.scale.specReplicasPath`;
  if (!scale.specReplicasPath) out.push(fieldError.required(spec, ''));
  else {
    const errs = simpleJsonPathErrors(scale.specReplicasPath, spec);
    if (errs.length) out.push(...errs);
    else if (!scale.specReplicasPath.startsWith('.spec.'))
      out.push(fieldError.invalid(spec, scale.specReplicasPath, 'should be a json path under .spec'));
  }
  const status = `${path}.scale.statusReplicasPath`;
  if (!scale.statusReplicasPath) out.push(fieldError.required(status, ''));
  else {
    const errs = simpleJsonPathErrors(scale.statusReplicasPath, status);
    if (errs.length) out.push(...errs);
    else if (!scale.statusReplicasPath.startsWith('.status.'))
      out.push(fieldError.invalid(status, scale.statusReplicasPath, 'should be a json path under .status'));
  }
  const selector = scale.labelSelectorPath;
  if (selector) {
    const sel = `${path}.scale.labelSelectorPath`;
    const errs = simpleJsonPathErrors(selector, sel);
    if (errs.length) out.push(...errs);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.'))
      out.push(fieldError.invalid(sel, selector, 'should be a json path under either .spec or .status'));
  }
  return out;
}

export function checkPrinterColumn(col: CustomResourceColumnDefinition, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!col.name) out.push(fieldError.required(`${path}.name`, ''));
  const typeDetail = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!col.type) out.push(fieldError.required(`${path}.type`, typeDetail));
  else if (!PRINTER_COLUMN_TYPES.includes(col.type)) out.push(fieldError.invalid(`${path}.type`, col.type, typeDetail));
  if (col.format && !PRINTER_COLUMN_FORMATS.includes(col.format)) {
    out.push(fieldError.invalid(`${path}.format`, col.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  if (!col.jsonPath) out.push(fieldError.required(`${path}.JSONPath`, ''));
  else out.push(...simpleJsonPathErrors(col.jsonPath, `${path}.JSONPath`));
  return out;
}

function webhookUrlErrors(raw: string, path: string): StatusCause[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch (e) {
    return [fieldError.required(path, `url must be a valid URL: ${(e as Error).message}${URL_FORM}`)];
  }
  const out: StatusCause[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https')
    out.push(fieldError.invalid(path, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) out.push(fieldError.invalid(path, u.host, `host must be specified${URL_FORM}`));
  if (u.username || u.password)
    out.push(
      fieldError.invalid(
        path,
        u.password ? `${u.username}:${u.password}` : u.username,
        'user information is not permitted in the URL',
      ),
    );
  if (u.hash.length > 1) out.push(fieldError.invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1)
    out.push(fieldError.invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return out;
}

function webhookServiceErrors(
  svc: { name?: string; namespace?: string; path?: string; port?: number },
  path: string,
): StatusCause[] {
  const out: StatusCause[] = [];
  if (!svc.name) out.push(fieldError.required(`${path}.name`, 'service name is required'));
  if (!svc.namespace) out.push(fieldError.required(`${path}.namespace`, 'service namespace is required'));
  const port = svc.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    out.push(fieldError.invalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const p = svc.path;
  if (p === undefined || p === '' || p === '/') return out;
  if (p === '//') return [...out, fieldError.invalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) out.push(fieldError.invalid(`${path}.path`, p, "must start with a '/'"));
  let rest = p.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') out.push(fieldError.invalid(`${path}.path`, p, `segment[${i}] may not be empty`));
    else
      for (const f of dns1123SubdomainErrors(step))
        out.push(fieldError.invalid(`${path}.path`, p, `segment[${i}]: ${f}`));
  });
  return out;
}

function reviewVersionErrors(versions: string[] | undefined, path: string): StatusCause[] {
  if (!versions || versions.length === 0) return [fieldError.required(path, '')];
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      out.push(fieldError.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const e of dns1035LabelErrors(v)) out.push(fieldError.invalid(`${path}[${i}]`, v, e));
  });
  if (!versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    const shown = new RenderedValue(`[]string{${versions.map((v) => JSON.stringify(v)).join(', ')}}`);
    out.push(fieldError.invalid(path, shown, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  }
  return out;
}

/** spec.conversion, reported under kube's internal field names (webhookClientConfig, conversionReviewVersions). */
export function checkConversion(conversion: CustomResourceConversion | undefined): StatusCause[] {
  if (!conversion) return [];
  const out: StatusCause[] = [];
  const base = 'spec.conversion';
  if (!conversion.strategy) out.push(fieldError.required(`${base}.strategy`, ''));
  else if (conversion.strategy !== 'None' && conversion.strategy !== 'Webhook')
    out.push(fieldError.notSupported(`${base}.strategy`, conversion.strategy, ['None', 'Webhook']));
  const cc = conversion.webhook?.clientConfig;
  const reviewVersions = conversion.webhook?.conversionReviewVersions;
  const ccPath = `${base}.webhookClientConfig`;
  if (conversion.strategy === 'Webhook') {
    if (!cc) out.push(fieldError.required(ccPath, 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined))
      out.push(fieldError.required(ccPath, 'exactly one of url or service is required'));
    else if (cc.url !== undefined) out.push(...webhookUrlErrors(cc.url, `${ccPath}.url`));
    else out.push(...webhookServiceErrors(cc.service!, `${ccPath}.service`));
    out.push(...reviewVersionErrors(reviewVersions, `${base}.conversionReviewVersions`));
  } else {
    if (cc) out.push(fieldError.forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions?.length)
      out.push(
        fieldError.forbidden(
          `${base}.conversionReviewVersions`,
          'should not be set when strategy is not set to Webhook',
        ),
      );
  }
  return out;
}
