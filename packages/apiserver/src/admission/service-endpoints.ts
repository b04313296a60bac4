// Where a webhook `clientConfig.service` reference goes. On a real cluster kube-apiserver resolves the
// Service to a ClusterIP or endpoint; here no cluster network exists, so the program that runs the webhook
// server registers the local address that serves it:
//
//   core.serviceEndpoints.set('modelplane-system/modelplane-webhooks:443', 'https://127.0.0.1:9443');
//
// The key is `<namespace>/<name>:<port>` (the port the reference names, default 443); the value is the
// base URL actually dialled. TLS still verifies the certificate against the Service's DNS name
// `<name>.<namespace>.svc`, exactly as kube-apiserver does, so the webhook's certificate must carry it.

export class ServiceEndpoints extends Map<string, string> {
  static key(namespace: string, name: string, port = 443): string {
    return `${namespace}/${name}:${port}`;
  }

  /** registers the base URL (scheme, host and port; no path) that serves a Service port */
  register(namespace: string, name: string, port: number, baseUrl: string): this {
    return this.set(ServiceEndpoints.key(namespace, name, port), baseUrl);
  }

  resolve(namespace: string, name: string, port = 443): string | undefined {
    return this.get(ServiceEndpoints.key(namespace, name, port));
  }
}
