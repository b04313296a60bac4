// The audit log: one JSON line per request (time, user, verb, resource, namespace, name, code,
// latency). Tests and benchmarks count API calls from it; `--audit-log FILE` writes it to disk.
import { createWriteStream, type WriteStream } from 'node:fs';

export interface AuditEntry {
  time: string;
  user: string;
  verb: string;
  /** resource[/subresource], or the non-resource path */
  resource: string;
  group: string;
  namespace: string;
  name: string;
  code: number;
  latencyMs: number;
  /** the request's path and query as sent (selectors of a list or watch are in it) */
  requestURI?: string;
  userAgent?: string;
  /** the authenticated user when the request impersonated `user` */
  impersonatedBy?: string;
  /**
   * audit.k8s.io Event annotations admission added, e.g. PodSecurity's
   * `pod-security.kubernetes.io/enforce-policy` and `pod-security.kubernetes.io/audit-violations`
   */
  annotations?: Record<string, string>;
}

export class AuditLog {
  private buffer: AuditEntry[] = [];
  private stream: WriteStream | undefined;

  constructor(
    private readonly maxEntries = 200_000,
    file?: string,
    /** also receives every entry as it is recorded (a benchmark's live counters) */
    private readonly sink?: (e: AuditEntry) => void,
  ) {
    if (file) this.stream = createWriteStream(file, { flags: 'a' });
  }

  record(e: AuditEntry): void {
    this.sink?.(e);
    this.buffer.push(e);
    // Drop a tenth at a time: trimming one entry per request would copy the whole buffer on every request.
    if (this.buffer.length > this.maxEntries)
      this.buffer.splice(0, this.buffer.length - Math.floor(this.maxEntries * 0.9));
    this.stream?.write(`${JSON.stringify(e)}\n`);
  }

  entries(): AuditEntry[] {
    return [...this.buffer];
  }

  clear(): void {
    this.buffer = [];
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.stream ? this.stream.end(resolve) : resolve()));
  }
}
