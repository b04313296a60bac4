// The real control plane's credentials, made fresh per cluster: a CA, the kube-apiserver serving
// certificate (loopback and the in-cluster `kubernetes` Service names), the ServiceAccount token signing
// key, kube-apiserver's client certificate towards kubelets, and the static tokens of the admin and of
// kube-controller-manager (kube-apiserver's --token-auth-file), so clients authenticate with a bearer
// token exactly as on the embedded server. A separate front-proxy CA and the client certificate
// kube-apiserver's aggregator presents to extension API servers (KEDA's metrics server, …) make the API
// aggregation layer work as kubeadm sets it up.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCA } from '../tls.ts';

export const REAL_ADMIN_USER = 'modelplane-admin';
export const KCM_USER = 'system:kube-controller-manager';
/** the name in the aggregator's client certificate (--requestheader-allowed-names) */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';
/** the first address of --service-cluster-ip-range: the `kubernetes` Service's ClusterIP */
export const SERVICE_CIDR = '10.0.0.0/24';
const KUBERNETES_SERVICE_IP = '10.0.0.1';

export interface RealPki {
  caPem: string;
  caKeyPem: string;
  adminToken: string;
  kcmToken: string;
  files: {
    ca: string;
    caKey: string;
    servingCert: string;
    servingKey: string;
    saKey: string;
    saPub: string;
    tokens: string;
    /** kube-apiserver's client certificate towards kubelets (--kubelet-client-certificate) */
    kubeletClientCert: string;
    kubeletClientKey: string;
    /** the API aggregation layer: the CA extension API servers trust for proxied requests, and the aggregator's client certificate */
    frontProxyCa: string;
    frontProxyClientCert: string;
    frontProxyClientKey: string;
  };
}

/** writes the CA, serving certificate, ServiceAccount key pair and token file into `dir` */
export async function writeRealPki(dir: string): Promise<RealPki> {
  const ca = await createCA(undefined, 'modelplane-real-ca');
  const names = [
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
  ];
  const serving = await ca.issue('kube-apiserver', names, ['127.0.0.1', '::1', KUBERNETES_SERVICE_IP]);
  // as kubeadm issues it: the identity kube-apiserver presents to kubelets (pods/log, exec, proxy)
  const kubeletClient = await ca.issue('kube-apiserver-kubelet-client', [], [], 365, ['system:masters']);
  const frontProxyCa = await createCA(undefined, 'modelplane-real-front-proxy-ca');
  const frontProxyClient = await frontProxyCa.issue(FRONT_PROXY_CLIENT, [], []);
  const sa = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const adminToken = randomBytes(24).toString('hex');
  const kcmToken = randomBytes(24).toString('hex');
  const files = {
    ca: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    saKey: join(dir, 'sa.key'),
    saPub: join(dir, 'sa.pub'),
    tokens: join(dir, 'tokens.csv'),
    kubeletClientCert: join(dir, 'apiserver-kubelet-client.crt'),
    kubeletClientKey: join(dir, 'apiserver-kubelet-client.key'),
    frontProxyCa: join(dir, 'front-proxy-ca.crt'),
    frontProxyClientCert: join(dir, 'front-proxy-client.crt'),
    frontProxyClientKey: join(dir, 'front-proxy-client.key'),
  };
  writeFileSync(files.frontProxyCa, frontProxyCa.certPem);
  writeFileSync(files.frontProxyClientCert, frontProxyClient.certPem);
  writeFileSync(files.frontProxyClientKey, frontProxyClient.keyPem, { mode: 0o600 });
  writeFileSync(files.ca, ca.certPem);
  writeFileSync(files.caKey, ca.keyPem, { mode: 0o600 });
  writeFileSync(files.servingCert, serving.certPem);
  writeFileSync(files.servingKey, serving.keyPem, { mode: 0o600 });
  writeFileSync(files.kubeletClientCert, kubeletClient.certPem);
  writeFileSync(files.kubeletClientKey, kubeletClient.keyPem, { mode: 0o600 });
  writeFileSync(files.saKey, sa.privateKey, { mode: 0o600 });
  writeFileSync(files.saPub, sa.publicKey);
  writeFileSync(
    files.tokens,
    `${adminToken},${REAL_ADMIN_USER},${REAL_ADMIN_USER},"system:masters"\n${kcmToken},${KCM_USER},${KCM_USER}\n`,
    { mode: 0o600 },
  );
  return { caPem: ca.certPem, caKeyPem: ca.keyPem, adminToken, kcmToken, files };
}
