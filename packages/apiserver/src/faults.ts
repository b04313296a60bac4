// Fault injection for reliability tests: fail a fraction of matching requests with 500/503/429, add
// latency, reject writes with 409, and act on open watches (close abruptly, stall and resume, expire history).
// Scoped by user, verb and resource. Driven in-process (`server.faults`) or over HTTP by admins at
// /debug/faults, so tests of separate operator processes can use it too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, type StatusError } from './errors.ts';
import type { RequestInfo } from './http/request-info.ts';
import type { UserInfo } from './types.ts';

export interface FaultSpec {
  /** request verbs (get, list, watch, create, update, patch, delete, deletecollection); all when absent */
  verbs?: string[];
  /** resources, optionally with subresource (`pods`, `deployments/status`); all when absent */
  resources?: string[];
  /** usernames; all when absent */
  users?: string[];
  /** share of matching requests affected, 0..1 (default 1) */
  fraction?: number;
  error?: 500 | 503 | 429;
  latencyMs?: number;
  /** answer writes with 409 Conflict */
  conflict?: boolean;
}

export interface WatchControl {
  closeAll(): void;
  endAll(): void;
  stalled: boolean;
}

let nextId = 1;

/** a request an injected fault answered: who asked for what, and the code it got */
export interface FaultedRequest {
  time: string;
  user: string;
  verb: string;
  resource: string;
  namespace: string;
  name: string;
  code: number;
}

/** the most faulted requests remembered (the oldest are dropped first) */
const FAULTED_KEPT = 100_000;

/**
 * The faults in force and the requests they answered: the matching rules and the Status each fault writes,
 * shared by the embedded server's interceptor and the real backend's fault proxy (docs/real-kubernetes.md),
 * so a fault means the same on both.
 */
export class FaultSet {
  private readonly faults = new Map<string, FaultSpec>();
  private readonly answered: FaultedRequest[] = [];

  add(spec: FaultSpec): string {
    if (spec.fraction !== undefined && !(spec.fraction >= 0 && spec.fraction <= 1))
      throw new Error(`fault fraction must be between 0 and 1, got ${spec.fraction}`);
    if (!spec.error && !spec.latencyMs && !spec.conflict)
      throw new Error('a fault needs one of error, latencyMs or conflict');
    const id = `fault-${nextId++}`;
    this.faults.set(id, { ...spec });
    return id;
  }

  remove(id: string): boolean {
    return this.faults.delete(id);
  }

  clear(): void {
    this.faults.clear();
  }

  list(): Array<FaultSpec & { id: string }> {
    return [...this.faults].map(([id, f]) => ({ id, ...f }));
  }

  /** every request a fault answered so far, oldest first */
  faulted(): FaultedRequest[] {
    return [...this.answered];
  }

  /**
   * Delays a matching request by its faults' latency and returns the error the first failing fault answers
   * it with (recorded in `faulted()`), or undefined when it should be served.
   */
  async check(username: string, info: RequestInfo): Promise<StatusError | undefined> {
    if (this.faults.size === 0 || !info.isResourceRequest) return undefined;
    const resource = info.subresource ? `${info.resource}/${info.subresource}` : (info.resource ?? '');
    for (const f of this.faults.values()) {
      if (f.verbs && !f.verbs.includes(info.verb)) continue;
      if (f.resources && !f.resources.includes(resource) && !f.resources.includes(info.resource ?? '')) continue;
      if (f.users && !f.users.includes(username)) continue;
      if (f.fraction !== undefined && Math.random() >= f.fraction) continue;
      if (f.latencyMs) await new Promise((r) => setTimeout(r, f.latencyMs));
      const err = faultError(f, info);
      if (!err) continue;
      this.record({ user: username, verb: info.verb, resource, code: err.code, info });
      return err;
    }
    return undefined;
  }

  /** remembers a request answered by a fault (also the proxy's expired watches) */
  record(r: { user: string; verb: string; resource: string; code: number; info: RequestInfo }): void {
    if (this.answered.length >= FAULTED_KEPT) this.answered.splice(0, FAULTED_KEPT / 10);
    this.answered.push({
      time: new Date().toISOString(),
      user: r.user,
      verb: r.verb,
      resource: r.resource,
      namespace: r.info.namespace ?? '',
      name: r.info.name ?? '',
      code: r.code,
    });
  }
}

/** the Status a fault answers a request with, as kube-apiserver writes that error (undefined: latency only) */
export function faultError(f: FaultSpec, info: RequestInfo): StatusError | undefined {
  if (f.error === 429)
    return errors.tooManyRequests(
      'the server has received too many requests and has asked us to try again later (injected fault)',
      1,
    );
  if (f.error === 503)
    return errors.serviceUnavailable('the server is currently unable to handle the request (injected fault)');
  if (f.error === 500) return errors.internal('injected fault');
  if (f.conflict && ['create', 'update', 'patch', 'delete'].includes(info.verb))
    return errors.conflict(
      info.resource ?? '',
      info.group,
      info.name ?? '',
      'the object has been modified; please apply your changes to the latest version and try again (injected fault)',
    );
  return undefined;
}

export class FaultInjector {
  private readonly set = new FaultSet();

  constructor(
    private readonly watches: WatchControl,
    private readonly expireHistory: () => void,
  ) {}

  add(spec: FaultSpec): string {
    return this.set.add(spec);
  }

  remove(id: string): boolean {
    return this.set.remove(id);
  }

  clear(): void {
    this.set.clear();
    this.watches.stalled = false;
  }

  list(): Array<FaultSpec & { id: string }> {
    return this.set.list();
  }

  /** every request a fault answered since this server started, oldest first */
  faulted(): FaultedRequest[] {
    return this.set.faulted();
  }

  /** drops every open watch connection without a clean end */
  closeWatches(): void {
    this.watches.closeAll();
  }

  /**
   * While on, open watches stay connected and hold their events; turning it off delivers them in order (a
   * close or expire in between drops the streams instead, events and all).
   */
  stallWatches(on: boolean): void {
    this.watches.stalled = on;
  }

  /** compacts history so watches resumed from any earlier resourceVersion get 410 */
  expireWatches(): void {
    this.expireHistory();
    this.watches.endAll();
  }

  /** the request interceptor: delays or fails a matching request */
  intercept = async (user: UserInfo, info: RequestInfo): Promise<void> => {
    const err = await this.set.check(user.username, info);
    if (err) throw err;
  };

  /**
   * /debug/faults: GET lists, POST {spec} adds (returns {id}), DELETE /debug/faults/<id> removes,
   * DELETE /debug/faults clears, POST /debug/faults/watches {action: close|stall|unstall|expire}.
   */
  async serveHttp(req: IncomingMessage, res: ServerResponse, path: string, body: unknown): Promise<number> {
    const send = (code: number, obj: unknown) => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(obj));
      return code;
    };
    const rest = path.replace(/^\/debug\/faults\/?/, '');
    if (req.method === 'GET' && rest === '')
      return send(200, { faults: this.list(), watchesStalled: this.watches.stalled });
    if (req.method === 'POST' && rest === '') {
      try {
        return send(201, { id: this.add((body ?? {}) as FaultSpec) });
      } catch (e) {
        throw errors.badRequest((e as Error).message);
      }
    }
    if (req.method === 'POST' && rest === 'watches') {
      const action = (body as { action?: string } | undefined)?.action;
      if (action === 'close') this.closeWatches();
      else if (action === 'stall') this.stallWatches(true);
      else if (action === 'unstall') this.stallWatches(false);
      else if (action === 'expire') this.expireWatches();
      else throw errors.badRequest('action must be one of close, stall, unstall, expire');
      return send(200, { action });
    }
    if (req.method === 'DELETE' && rest === '') {
      this.clear();
      return send(200, {});
    }
    if (req.method === 'DELETE') {
      if (!this.remove(rest)) throw errors.notFoundPath();
      return send(200, { id: rest });
    }
    throw errors.methodNotAllowed(`${req.method} is not supported on ${path}`);
  }
}
