// ConversionReview (apiextensions.k8s.io v1 and v1beta1): kube-apiserver sends objects of one CRD and the
// version it wants; the converter rewrites each. Metadata other than labels and annotations is restored
// from the original, because apiextensions-apiserver rejects a conversion that changes it, and a converter
// that builds a fresh object would otherwise break every read.
import type { KubeObject } from '@modelplane/runtime/meta';
import { BadReview } from './review.ts';

export type Converter = (obj: KubeObject, desiredAPIVersion: string) => KubeObject | Promise<KubeObject>;

export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

export interface ConversionResponse {
  uid: string;
  result: { status: 'Success' | 'Failure'; message?: string };
  convertedObjects: KubeObject[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function decodeConversionReview(body: unknown): { version: 'v1' | 'v1beta1'; request: ConversionRequest } {
  if (!isObj(body)) throw new BadReview('request body must be a JSON object (a ConversionReview)');
  if (body.kind !== 'ConversionReview')
    throw new BadReview(`expected kind ConversionReview, got ${JSON.stringify(body.kind ?? '')}`);
  const version =
    body.apiVersion === 'apiextensions.k8s.io/v1'
      ? 'v1'
      : body.apiVersion === 'apiextensions.k8s.io/v1beta1'
        ? 'v1beta1'
        : undefined;
  if (!version)
    throw new BadReview(
      `unsupported ConversionReview apiVersion ${JSON.stringify(body.apiVersion ?? '')}: expected apiextensions.k8s.io/v1 or v1beta1`,
    );
  const r = body.request;
  if (!isObj(r)) throw new BadReview('ConversionReview has no request');
  if (typeof r.uid !== 'string' || r.uid === '')
    throw new BadReview('ConversionReview request.uid must be a non-empty string');
  if (typeof r.desiredAPIVersion !== 'string' || !r.desiredAPIVersion.includes('/'))
    throw new BadReview(
      `ConversionReview request.desiredAPIVersion ${JSON.stringify(r.desiredAPIVersion ?? '')} is not group/version`,
    );
  if (
    !Array.isArray(r.objects) ||
    !r.objects.every((o) => isObj(o) && typeof o.apiVersion === 'string' && isObj(o.metadata))
  ) {
    throw new BadReview('ConversionReview request.objects must be a list of objects with apiVersion and metadata');
  }
  return { version, request: r as unknown as ConversionRequest };
}

export function encodeConversionReview(
  version: 'v1' | 'v1beta1',
  response: ConversionResponse,
): Record<string, unknown> {
  return { apiVersion: `apiextensions.k8s.io/${version}`, kind: 'ConversionReview', response };
}

function describe(obj: KubeObject): string {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}/` : '';
  return `${obj.kind} ${ns}${obj.metadata.name ?? ''}`;
}

/** converts every object; the first failure fails the whole review, naming the object */
export async function convertAll(request: ConversionRequest, convert: Converter): Promise<ConversionResponse> {
  const out: KubeObject[] = [];
  for (const original of request.objects) {
    if (original.apiVersion === request.desiredAPIVersion) {
      out.push(original);
      continue;
    }
    try {
      const converted = await convert(structuredClone(original), request.desiredAPIVersion);
      if (!isObj(converted)) throw new Error(`the converter returned ${typeof converted}, not an object`);
      if (converted.apiVersion !== request.desiredAPIVersion)
        throw new Error(`the converter returned apiVersion ${JSON.stringify(converted.apiVersion)}`);
      const meta: KubeObject['metadata'] = isObj(converted.metadata) ? converted.metadata : {};
      const metadata = { ...original.metadata };
      if (meta.labels !== undefined) metadata.labels = meta.labels;
      if (meta.annotations !== undefined) metadata.annotations = meta.annotations;
      out.push({ ...converted, kind: original.kind, metadata });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return {
        uid: request.uid,
        result: {
          status: 'Failure',
          message: `converting ${describe(original)} from ${original.apiVersion} to ${request.desiredAPIVersion}: ${why}`,
        },
        convertedObjects: [],
      };
    }
  }
  return { uid: request.uid, result: { status: 'Success' }, convertedObjects: out };
}
