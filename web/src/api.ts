// The browser side of the dashboard's API: Server-Sent Event streams (live updates pushed from the
// backend's watches; the browser never polls) and the form's JSON calls.
import { useEffect, useRef, useState } from 'react';
import type {
  ChangesMessage,
  DashboardInfo,
  ResourceDetail,
  ResourceSummary,
  SnapshotMessage,
  ValidationResponse,
} from '../../src/cli/dashboard/types.ts';

export type { ChangesMessage, DashboardInfo, ResourceDetail, ResourceSummary, ValidationResponse };
export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface Overview {
  info?: DashboardInfo;
  resources: Map<string, ResourceSummary>;
  /** bumps on every change so views re-render */
  version: number;
  connection: Connection;
}

export function useOverview(): Overview {
  const [state, setState] = useState<Overview>({ resources: new Map(), version: 0, connection: 'connecting' });
  useEffect(() => {
    const es = new EventSource('/api/stream');
    es.addEventListener('snapshot', (e) => {
      const msg = JSON.parse((e as MessageEvent).data) as SnapshotMessage;
      setState((s) => ({
        info: msg.info,
        resources: new Map(msg.resources.map((r) => [r.key, r])),
        version: s.version + 1,
        connection: 'live',
      }));
    });
    es.addEventListener('changes', (e) => {
      const msg = JSON.parse((e as MessageEvent).data) as ChangesMessage;
      setState((s) => {
        const resources = new Map(s.resources);
        for (const r of msg.upserts) resources.set(r.key, r);
        for (const k of msg.removes) resources.delete(k);
        return { ...s, resources, version: s.version + 1 };
      });
    });
    es.onerror = () => setState((s) => ({ ...s, connection: 'reconnecting' }));
    es.onopen = () => setState((s) => ({ ...s, connection: 'live' }));
    return () => es.close();
  }, []);
  return state;
}

export interface DetailState {
  detail?: ResourceDetail;
  gone: boolean;
  connection: Connection;
}

export function useResource(key: string): DetailState {
  const [state, setState] = useState<DetailState>({ gone: false, connection: 'connecting' });
  useEffect(() => {
    setState({ gone: false, connection: 'connecting' });
    const es = new EventSource(`/api/stream/resource?key=${encodeURIComponent(key)}`);
    es.addEventListener('detail', (e) =>
      setState({ detail: JSON.parse((e as MessageEvent).data) as ResourceDetail, gone: false, connection: 'live' }),
    );
    es.addEventListener('gone', () => setState((s) => ({ ...s, gone: true, connection: 'live' })));
    es.onerror = () => setState((s) => ({ ...s, connection: 'reconnecting' }));
    return () => es.close();
  }, [key]);
  return state;
}

async function postJson<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

export const validateModelDeployment = (obj: unknown) =>
  postJson<ValidationResponse>('/api/modeldeployments/validate', obj);
export const createModelDeployment = (obj: unknown) =>
  postJson<ValidationResponse & { key?: string; error?: string }>('/api/modeldeployments', obj);

/** the "send load" button: the server picks the Service, model and duration from the variant the key names */
export const sendLoad = (key: string) =>
  postJson<{ until?: number; error?: string }>(`/api/load?key=${encodeURIComponent(key)}`, {});

/** one chat message through the model's Gateway; the server builds the request from the object's status */
export const sendChat = (key: string, message: string) =>
  postJson<{ answer?: string; error?: string; latencyMs?: number }>(`/api/chat?key=${encodeURIComponent(key)}`, {
    message,
  });

export async function fetchProviders(): Promise<string[]> {
  const res = await fetch('/api/providers');
  return res.ok ? ((await res.json()) as string[]) : [];
}

/** `value` after it stopped changing for `ms` */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export const resourceHref = (key: string) => `#/r/${encodeURIComponent(key)}`;
