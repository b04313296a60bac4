// The fidelity sequence's admission webhook: refuses ConfigMaps labelled deny=true and labels the others
// mutated=yes (kube-apiserver appends ?timeout=… to the path). `/hold/<backend>` allows every request, but an
// armed hold (armHold) keeps the first one open until released, so a test can land a write meanwhile. Served over HTTPS with its own CA, called by URL so both backends reach it the same way.
import { createServer, type Server } from 'node:https';

export interface FidelityWebhook {
  url: string;
  caPem: string;
  close(): Promise<void>;
}

function review(path: string, request: any): Record<string, unknown> {
  const labels = request?.object?.metadata?.labels ?? {};
  if (path === '/validate') {
    if (labels.deny === 'true')
      return {
        uid: request.uid,
        allowed: false,
        status: { code: 403, message: 'fidelity-deny: configmaps labelled deny=true are refused' },
      };
    return { uid: request.uid, allowed: true };
  }
  const patch = [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }];
  return {
    uid: request.uid,
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
  };
}

interface Hold {
  reached(): void;
  released: Promise<void>;
}
const holds = new Map<string, Hold>();

/** the next request to `/hold/<key>` waits until `release()`; `reached` resolves once it arrived */
export function armHold(key: string): { reached: Promise<void>; release(): void } {
  let reached!: () => void;
  let release!: () => void;
  const reachedP = new Promise<void>((res) => (reached = res));
  holds.set(key, { reached, released: new Promise<void>((res) => (release = res)) });
  return { reached: reachedP, release };
}

/** forgets a hold no request reached */
export function disarmHold(key: string): void {
  holds.delete(key);
}

/** waits while an armed hold keeps a `/hold/<key>` request; only the first request is held */
async function holding(path: string): Promise<void> {
  const key = path.startsWith('/hold/') ? path.slice('/hold/'.length) : undefined;
  const hold = key === undefined ? undefined : holds.get(key);
  if (!hold || key === undefined) return;
  holds.delete(key);
  hold.reached();
  await hold.released;
}

/** `ca` issues the serving certificate (the embedded server's CA will do: both backends get its caBundle) */
export async function startFidelityWebhook(ca: {
  caPem: string;
  issueCertificate(cn: string, dnsNames: string[], ips: string[]): Promise<{ certPem: string; keyPem: string }>;
}): Promise<FidelityWebhook> {
  const serving = await ca.issueCertificate('fidelity-webhook', ['localhost'], ['127.0.0.1']);
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      const parsed = JSON.parse(body || '{}');
      const path = new URL(req.url ?? '/', 'https://webhook').pathname;
      await holding(path);
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: path.startsWith('/hold/')
            ? { uid: parsed.request?.uid, allowed: true }
            : review(path, parsed.request),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: ca.caPem,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
