// Shared pieces of the webhook tests: a ConfigMap validator and defaulter standing in for the
// ModelDeployment ones, their registrations, and the certificate a server presents.
import type { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import type { ConfigMap } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import type {
  AdmissionRequest,
  AdmissionWebhookSpec,
  FieldError,
  ValidationOutcome,
  WebhookRegistry,
} from '../../src/webhooks/index.ts';

/** `data.size` must be a whole number ≤ 10; `data.owner` is required; `data.legacy` draws a warning */
export function validateConfigMap(cm: ConfigMap): ValidationOutcome {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const size = cm.data?.size;
  if (size !== undefined && !/^\d+$/.test(size))
    errors.push({ field: 'data.size', message: `data.size must be a whole number, got "${size}"` });
  else if (size !== undefined && Number(size) > 10)
    errors.push({ field: 'data.size', message: `data.size ${size} exceeds maximum allowed (10)` });
  if (cm.data?.owner === undefined) errors.push({ field: 'data.owner', message: 'data.owner is required' });
  if (cm.data?.legacy !== undefined) warnings.push('data.legacy is deprecated; use data.modern');
  return { errors, warnings };
}

/** sets data.tier (default "standard") and a label, in place, as defaultModelDeployment-style functions do */
export function defaultConfigMap(cm: ConfigMap): ConfigMap {
  cm.data = { tier: 'standard', ...(cm.data ?? {}) };
  cm.metadata.labels = { ...(cm.metadata.labels ?? {}), 'test.modelplane.io/defaulted': 'true' };
  return cm;
}

export const TEST_NAMESPACE = 'webhook-test';

function configMapSpec(name: string): AdmissionWebhookSpec {
  return {
    name,
    rules: [
      {
        operations: ['CREATE', 'UPDATE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps'],
        scope: 'Namespaced',
      },
    ],
    // only the test namespace, so the Secret's namespace and kube-system are never blocked by the webhook
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': TEST_NAMESPACE } },
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
  };
}

export function registerConfigMapWebhooks(hooks: WebhookRegistry): void {
  hooks.mutating(
    '/default-configmap',
    configMapSpec('mconfigmap.test.modelplane.io'),
    (req: AdmissionRequest<ConfigMap>) => defaultConfigMap(req.object!),
  );
  hooks.validating(
    '/validate-configmap',
    configMapSpec('vconfigmap.test.modelplane.io'),
    (req: AdmissionRequest<ConfigMap>) => validateConfigMap(req.object!),
  );
}

export function configMap(name: string, data: Record<string, string>): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: TEST_NAMESPACE }, data };
}

/** the leaf certificate the server at 127.0.0.1:`port` presents, verified against `ca` for `servername` */
export function presentedCert(port: number, ca: string, servername: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername }, () => {
      const raw = socket.getPeerX509Certificate();
      socket.end();
      if (!raw) reject(new Error('no peer certificate'));
      else resolve(raw);
    });
    socket.on('error', reject);
  });
}

export function caBundles(obj: KubeObject | undefined): unknown[] {
  return ((obj?.webhooks as any[]) ?? []).map((w) => w.clientConfig?.caBundle);
}
