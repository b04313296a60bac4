// Fault injection for the engine's integration test. The embedded API server's fault API
// (`server.faults.add({verbs, resources, users, fraction, error})` / `remove(id)`) is used when the server
// has it. Until then the same rules are applied inside the operator's HTTP transport: a matching request
// fails with exactly the ApiError a 503 response produces there, so the engine cannot tell the difference.

import type { ApiServer } from '@modelplane/apiserver';
import { ApiError, type HttpRequest, type Transport } from '@modelplane/runtime/client';

export interface FaultRule {
  verbs?: string[];
  resources?: string[];
  users?: string[];
  fraction: number;
  error?: 500 | 503 | 429;
}

export interface FaultControl {
  readonly mode: 'apiserver' | 'transport';
  add(rule: FaultRule): string;
  remove(id: string): void;
}

interface ServerFaults {
  add(rule: FaultRule): string | { id: string };
  remove(id: string): void;
}

/** the Kubernetes verb and resource (`configmaps`, `greetings/status`) of a request path */
export function requestAttributes(req: HttpRequest): { verb: string; resource: string } {
  const parts = req.path.split('?')[0]!.split('/').filter(Boolean);
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const [resource = '', name, sub] = rest;
  const verbs: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
  const watching = req.query?.watch === true || req.query?.watch === 'true' || req.query?.watch === 1;
  const verb = req.method === 'GET' ? (watching ? 'watch' : name ? 'get' : 'list') : verbs[req.method]!;
  return { verb, resource: sub ? `${resource}/${sub}` : resource };
}

/** the embedded server's fault API when there is one (`server`), else the operator's transport */
export function faultControl(server: ApiServer | undefined, transport: Transport): FaultControl {
  const native = (server as unknown as { faults?: ServerFaults } | undefined)?.faults;
  if (native) {
    return {
      mode: 'apiserver',
      add: (rule) => {
        const r = native.add(rule);
        return typeof r === 'string' ? r : r.id;
      },
      remove: (id) => native.remove(id),
    };
  }
  const rules = new Map<string, FaultRule>();
  let next = 1;
  const original = transport.request.bind(transport);
  transport.request = async (req: HttpRequest) => {
    const { verb, resource } = requestAttributes(req);
    for (const rule of rules.values()) {
      if (rule.verbs && !rule.verbs.includes(verb)) continue;
      if (rule.resources && !rule.resources.includes(resource)) continue;
      if (Math.random() >= rule.fraction) continue;
      const code = rule.error ?? 503;
      throw ApiError.fromResponse(req.method, req.path, code, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code,
        reason: code === 429 ? 'TooManyRequests' : code === 503 ? 'ServiceUnavailable' : 'InternalError',
        message: 'injected fault',
      });
    }
    return original(req);
  };
  return {
    mode: 'transport',
    add: (rule) => {
      const id = `fault-${next++}`;
      rules.set(id, rule);
      return id;
    },
    remove: (id) => {
      rules.delete(id);
    },
  };
}
