// The handle startApiServer returns: methods over the running server, never its parts. restart() swaps a new
// running server in behind the same handle, so callers keep using the object they have.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ApiServer, FaultControls } from './api.ts';
import { type AssemblyOptions, assembleServer, type RunningServer } from './assembly.ts';
import type { AuditEntry } from './audit.ts';
import { type ServiceAccountKubeconfigOptions, serviceAccountCredentials } from './auth/index.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import type { UserInfo } from './types.ts';

const handles = new WeakMap<ApiServer, ApiServerHandle>();

/** The running server's parts, for this package's own tests and benchmark (not exported by the package). */
export function partsOf(server: ApiServer): RunningServer {
  const handle = handles.get(server);
  if (!handle) throw new Error('partsOf: not a handle returned by startApiServer');
  return handle.running;
}

export async function startServer(opts: AssemblyOptions): Promise<ApiServer> {
  const handle = new ApiServerHandle(opts, await assembleServer(opts));
  handles.set(handle, handle);
  return handle;
}

class ApiServerHandle implements ApiServer {
  /** tokens added through the handle, given to the next server on restart */
  private readonly addedTokens: Record<string, UserInfo> = {};
  readonly faults: FaultControls;

  constructor(
    private readonly opts: AssemblyOptions,
    public running: RunningServer,
  ) {
    const current = () => this.running.faults;
    this.faults = {
      add: (spec) => current().add(spec),
      remove: (id) => current().remove(id),
      clear: () => current().clear(),
      list: () => current().list(),
      closeWatches: () => current().closeWatches(),
      stallWatches: (on) => current().stallWatches(on),
      expireWatches: () => current().expireWatches(),
      faulted: () => current().faulted(),
    };
  }

  get url(): string {
    return this.running.url;
  }
  get port(): number {
    return this.running.port;
  }
  get caPem(): string {
    return this.running.ca.certPem;
  }
  get adminToken(): string {
    return this.running.adminToken;
  }

  addToken(token: string, user: UserInfo): void {
    this.addedTokens[token] = user;
    this.running.auth.tokens.add(token, user);
  }

  auditEntries(): AuditEntry[] {
    return this.running.audit.entries();
  }

  clearAuditEntries(): void {
    this.running.audit.clear();
  }

  issueCertificate(
    commonName: string,
    dnsNames: string[],
    ips: string[] = [],
  ): Promise<{ certPem: string; keyPem: string }> {
    return this.running.ca.issue(commonName, dnsNames, ips);
  }

  kubeconfigYaml(o: { token?: string; user?: string; namespace?: string } = {}): string {
    return kubeconfigYaml({
      server: this.url,
      caPem: this.caPem,
      token: o.token ?? this.adminToken,
      ...(o.user ? { user: o.user } : {}),
      ...(o.namespace ? { namespace: o.namespace } : {}),
    });
  }

  serviceAccountKubeconfig(namespace: string, name: string, opts: ServiceAccountKubeconfigOptions = {}): string {
    const { token, user } = serviceAccountCredentials(this.running.auth.serviceAccounts, namespace, name, opts);
    return this.kubeconfigYaml({ token, user, namespace });
  }

  writeKubeconfig(path: string): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, this.kubeconfigYaml(), { mode: 0o600 });
  }

  compactStorage(): void {
    this.running.core.store.compactStorage();
    this.running.core.paginator.expireAll();
  }

  async restart(): Promise<void> {
    const previous = this.running;
    await previous.close();
    this.running = await assembleServer({
      ...this.opts,
      port: previous.port,
      adminToken: previous.adminToken,
      ca: { certPem: previous.ca.certPem, keyPem: previous.ca.keyPem },
      tokens: { ...this.opts.tokens, ...this.addedTokens },
    });
  }

  close(): Promise<void> {
    return this.running.close();
  }
}
