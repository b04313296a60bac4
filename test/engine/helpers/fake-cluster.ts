// An in-memory stand-in for the API server and cache, just enough for pipeline unit tests: objects by
// key, server-side apply (whole object and status, with a managedFields entry per field manager),
// resourceVersion preconditions on status writes, delete, injectable failures, and recorded requests,
// events and log lines.

import { ApiError } from '@modelplane/runtime/client';
import type { EventType } from '@modelplane/runtime/events';
import type { LogFields } from '@modelplane/runtime/log';
import { type KindRef, type KubeObject, parseApiVersion } from '@modelplane/runtime/meta';
import type { EngineLogger, ObjectReader, RunDeps } from '../../../src/engine/index.ts';

export interface RecordedRequest {
  verb: 'apply' | 'applyStatus' | 'delete';
  kind: string;
  name: string;
  namespace?: string;
  body?: KubeObject;
}

export interface RecordedEvent {
  type: EventType;
  reason: string;
  note: string;
}

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields?: LogFields;
}

type Fault = (verb: RecordedRequest['verb'], obj: { kind: string; metadata: { name?: string } }) => unknown;

function keyOf(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${parseApiVersion(apiVersion).group}/${kind}/${namespace ?? ''}/${name}`;
}

/** fieldsV1 for a value as an apply of it would record: maps by field, condition-like lists by `type` */
export function fieldsFor(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const item of value) {
      if (item && typeof item === 'object' && typeof (item as { type?: unknown }).type === 'string') {
        out[`k:${JSON.stringify({ type: (item as { type: string }).type })}`] = { '.': {}, ...fieldsFor(item) };
      }
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[`f:${k}`] = v && typeof v === 'object' ? fieldsFor(v) : {};
    return out;
  }
  return {};
}

export class FakeCluster {
  readonly objects = new Map<string, KubeObject>();
  readonly requests: RecordedRequest[] = [];
  readonly events: RecordedEvent[] = [];
  readonly logs: LogLine[] = [];
  faults: Fault[] = [];
  private rv = 1;
  private uid = 1;

  readonly fieldManager: string;
  readonly client: RunDeps['client'];

  constructor(fieldManager = 'test-controller') {
    this.fieldManager = fieldManager;
    this.client = this.makeClient();
  }

  put<T extends KubeObject>(obj: T): T {
    const stored = structuredClone(obj);
    stored.metadata.uid ??= `uid-${this.uid++}`;
    stored.metadata.resourceVersion = String(this.rv++);
    stored.metadata.generation ??= 1;
    this.objects.set(keyOf(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name!), stored);
    return structuredClone(stored);
  }

  getObject<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
  ): T | undefined {
    const o = this.objects.get(keyOf(apiVersion, kind, namespace, name));
    return o ? (structuredClone(o) as T) : undefined;
  }

  remove(apiVersion: string, kind: string, name: string, namespace?: string): void {
    this.objects.delete(keyOf(apiVersion, kind, namespace, name));
  }

  count(verb: RecordedRequest['verb']): number {
    return this.requests.filter((r) => r.verb === verb).length;
  }

  clearRecords(): void {
    this.requests.length = 0;
    this.events.length = 0;
    this.logs.length = 0;
  }

  private fail(verb: RecordedRequest['verb'], obj: { kind: string; metadata: { name?: string } }): void {
    for (const f of this.faults) {
      const err = f(verb, obj);
      if (err) throw err;
    }
  }

  readonly reader: ObjectReader = {
    get: async <T extends KubeObject>(kind: KindRef<T>, name: string, namespace?: string) =>
      this.getObject<T>(kind.apiVersion, kind.kind, name, namespace),
    list: async <T extends KubeObject>(kind: KindRef<T>, opts: { namespace?: string } = {}) =>
      [...this.objects.values()]
        .filter((o) => o.kind === kind.kind && (!opts.namespace || o.metadata.namespace === opts.namespace))
        .map((o) => structuredClone(o) as T),
  };

  private setManaged(obj: KubeObject, subresource: '' | 'status', fields: Record<string, unknown>): void {
    const entries = (obj.metadata.managedFields ?? []).filter(
      (e) => !(e.manager === this.fieldManager && (e.subresource ?? '') === subresource),
    );
    entries.push({
      manager: this.fieldManager,
      operation: 'Apply',
      apiVersion: obj.apiVersion,
      fieldsType: 'FieldsV1',
      fieldsV1: fields,
      ...(subresource ? { subresource } : {}),
    });
    obj.metadata.managedFields = entries;
  }

  private makeClient(): RunDeps['client'] {
    return {
      fieldManager: this.fieldManager,
      apply: async (obj: KubeObject) => {
        this.requests.push({
          verb: 'apply',
          kind: obj.kind,
          name: obj.metadata.name!,
          namespace: obj.metadata.namespace,
          body: structuredClone(obj),
        });
        this.fail('apply', obj);
        const existing = this.getObject(obj.apiVersion, obj.kind, obj.metadata.name!, obj.metadata.namespace);
        const { status: _s, ...spec } = obj;
        const merged: KubeObject = {
          ...(existing ?? {}),
          ...structuredClone(spec),
          metadata: { ...(existing?.metadata ?? {}), ...structuredClone(obj.metadata) },
        };
        const { apiVersion: _a, kind: _k, metadata, ...rest } = spec;
        const { name: _n, namespace: _ns, ...meta } = metadata;
        this.setManaged(merged, '', fieldsFor({ ...rest, metadata: meta }));
        return this.put(merged) as never;
      },
      applyStatus: async (obj: KubeObject) => {
        this.requests.push({
          verb: 'applyStatus',
          kind: obj.kind,
          name: obj.metadata.name!,
          namespace: obj.metadata.namespace,
          body: structuredClone(obj),
        });
        this.fail('applyStatus', obj);
        const existing = this.getObject(obj.apiVersion, obj.kind, obj.metadata.name!, obj.metadata.namespace);
        if (!existing)
          throw new ApiError({ code: 404, reason: 'NotFound', message: `${obj.kind} ${obj.metadata.name} not found` });
        if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== existing.metadata.resourceVersion) {
          throw new ApiError({
            code: 409,
            reason: 'Conflict',
            message: 'the object has been modified; please apply your changes to the latest version and try again',
          });
        }
        existing.status = structuredClone(obj.status);
        this.setManaged(existing, 'status', { 'f:status': fieldsFor(obj.status) });
        return this.put(existing) as never;
      },
      delete: async (kind: KindRef<any>, name: string, namespace?: string) => {
        this.requests.push({ verb: 'delete', kind: kind.kind, name, namespace });
        this.fail('delete', { kind: kind.kind, metadata: { name } });
        if (!this.getObject(kind.apiVersion, kind.kind, name, namespace))
          throw new ApiError({ code: 404, reason: 'NotFound', message: `${kind.kind} ${name} not found` });
        this.remove(kind.apiVersion, kind.kind, name, namespace);
      },
      get: async () => {
        throw new Error('fake cluster: live get is not used by these tests');
      },
      getOrUndefined: async () => undefined,
      list: async () => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [] }),
      transport: undefined as never,
    } as unknown as RunDeps['client'];
  }

  readonly log: EngineLogger = {
    debug: (msg, fields) => this.logs.push({ level: 'debug', msg, ...(fields ? { fields } : {}) }),
    info: (msg, fields) => this.logs.push({ level: 'info', msg, ...(fields ? { fields } : {}) }),
    warn: (msg, fields) => this.logs.push({ level: 'warn', msg, ...(fields ? { fields } : {}) }),
    error: (msg, fields) => this.logs.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
  };

  deps(): RunDeps {
    return {
      client: this.client,
      reader: this.reader,
      recorder: { event: (_o, type, reason, note) => this.events.push({ type, reason, note }) },
      log: this.log,
    };
  }
}

/** an ApiError as the API server would return it for `code` */
export function apiError(code: number, reason?: string): ApiError {
  return new ApiError({ code, reason: reason ?? String(code), message: `HTTP ${code}`, verb: 'GET', path: '/x' });
}
