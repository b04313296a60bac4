// kube-apiserver's audit log (audit.k8s.io/v1 Events, one JSON object per line) read into the embedded
// server's AuditEntry shape, so tests and benchmarks count requests the same way on both backends.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import type { AuditEntry } from '../audit.ts';

interface AuditEvent {
  stage: string;
  verb: string;
  requestURI: string;
  user?: { username?: string };
  impersonatedUser?: { username?: string };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** kube-apiserver's `get` of a collection is a `list`, a `watch` query a `watch`: the audit verb already says which */
export function toAuditEntry(e: AuditEvent): AuditEntry {
  const ref = e.objectRef ?? {};
  const resource = ref.resource
    ? ref.subresource
      ? `${ref.resource}/${ref.subresource}`
      : ref.resource
    : e.requestURI.split('?')[0]!;
  const impersonated = e.impersonatedUser?.username;
  return {
    time: e.requestReceivedTimestamp,
    user: impersonated ?? e.user?.username ?? '',
    verb: e.verb,
    resource,
    group: ref.apiGroup ?? '',
    namespace: ref.namespace ?? '',
    name: ref.name ?? '',
    code: e.responseStatus?.code ?? 0,
    latencyMs: Date.parse(e.stageTimestamp) - Date.parse(e.requestReceivedTimestamp),
    requestURI: e.requestURI,
    ...(e.userAgent ? { userAgent: e.userAgent } : {}),
    ...(impersonated ? { impersonatedBy: e.user?.username ?? '' } : {}),
    ...(e.annotations ? { annotations: e.annotations } : {}),
  };
}

/**
 * kube-apiserver's audit log, read incrementally: each call reads only what was appended since the last
 * one, keeping every completed request (ResponseComplete or Panic; a watch also logs ResponseStarted,
 * which would count it twice) in order. With --audit-log-mode=blocking an entry is written before its
 * response is sent, so a request the caller has seen answered is already here.
 */
export class RealAuditLog {
  private readonly all: AuditEntry[] = [];
  private offset = 0;
  private partial = '';

  constructor(readonly file: string) {}

  entries(): AuditEntry[] {
    this.readNew();
    return this.all;
  }

  get length(): number {
    return this.entries().length;
  }

  private readNew(): void {
    if (!existsSync(this.file)) return;
    const fd = openSync(this.file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size <= this.offset) return;
      const buf = Buffer.alloc(size - this.offset);
      readSync(fd, buf, 0, buf.length, this.offset);
      this.offset = size;
      const lines = (this.partial + buf.toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line) continue;
        const e = JSON.parse(line) as AuditEvent;
        if (e.stage === 'ResponseComplete' || e.stage === 'Panic') this.all.push(toAuditEntry(e));
      }
    } finally {
      closeSync(fd);
    }
  }
}
