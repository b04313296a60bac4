// A validating admission webhook that refuses the writes a test names, with the HTTP code and message a
// ResourceQuota, a policy engine or a size limit would answer with: how tests deny a controller's writes
// on both backends (the embedded API server and kube-apiserver call it the same way, by URL).
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { generateCA, issueServingCert } from '../../src/webhooks/certs.ts';

export interface Denial {
  /** resource (plural, e.g. configmaps) whose writes are refused */
  resource: string;
  code: number;
  message: string;
}

export interface DenyingWebhook {
  /** refuse writes matching this (replacing the previous denial); undefined allows everything */
  deny(denial: Denial | undefined): void;
  /** the writes refused so far, as `resource operation name` */
  refused: string[];
  stop(): Promise<void>;
}

const HOUR = 3_600_000;

/** registers `name` for CREATE and UPDATE of `resources` in `namespace`, answered by a server on 127.0.0.1 */
export async function startDenyingWebhook(
  admin: KubeClient,
  name: string,
  namespace: string,
  resources: Array<{ group: string; resource: string }>,
): Promise<DenyingWebhook> {
  const ca = await generateCA({ commonName: 'deny-test-ca', lifetimeMs: HOUR });
  const serving = await issueServingCert(ca, {
    commonName: '127.0.0.1',
    dnsNames: [],
    ips: ['127.0.0.1'],
    lifetimeMs: HOUR,
  });
  let denial: Denial | undefined;
  const refused: string[] = [];
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: Record<string, any> };
      const r = review.request;
      const refuse = denial && r.resource?.resource === denial.resource ? denial : undefined;
      if (refuse) refused.push(`${r.resource.resource} ${r.operation} ${r.name}`);
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: {
            uid: r.uid,
            allowed: !refuse,
            ...(refuse ? { status: { code: refuse.code, message: refuse.message } } : {}),
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await admin.apply({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `${name}.test.modelplane.io`,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
        clientConfig: {
          url: `https://127.0.0.1:${port}/deny`,
          caBundle: Buffer.from(ca.certPem).toString('base64'),
        },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
        rules: resources.map((r) => ({
          operations: ['CREATE', 'UPDATE'],
          apiGroups: [r.group],
          apiVersions: ['*'],
          resources: [r.resource],
        })),
      },
    ],
  } as unknown as KubeObject);
  return {
    deny: (d) => {
      denial = d;
    },
    refused,
    stop: async () => {
      await admin
        .delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' }, name)
        .catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
