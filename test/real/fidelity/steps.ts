// The building blocks of the fidelity sequence: an exchange is one request (raw HTTP or a kubectl command)
// whose observable result — status code or exit code, and the normalised body or output — is recorded on
// each backend; a wait is an uncounted step that lets both backends' controllers catch up.
import { join } from 'node:path';
import { type RawTarget, raw, runKubectl } from '@modelplane/apiserver/testing';
import { waitFor } from '../../helpers/wait.ts';
import { normaliseJson, normaliseText } from './normalise.ts';

export interface Target extends RawTarget {
  backend: 'embedded' | 'real';
  kubeconfig: string;
  dir: string;
  /** the fidelity webhook server's base URL */
  webhookUrl: string;
  webhookCaPem: string;
  /** values captured by earlier exchanges on this backend (e.g. uids for ownerReferences) */
  saved: Map<string, string>;
  /** etcd compacts every revision so far (the embedded server's equivalent: ApiServer.compactStorage) */
  compactStorage(): Promise<void>;
  /** the watch cache starts over: kube-apiserver restarts (the embedded server drops its watch history) */
  restartWatchCache(): Promise<void>;
}

export interface Observation {
  /** HTTP status, or kubectl's exit code */
  status: number;
  body: unknown;
}

export interface Step {
  name: string;
  area: string;
  /** false for waits, which are not compared */
  counted: boolean;
  run(t: Target): Promise<Observation>;
}

type Dynamic<T> = T | ((t: Target) => T);
const resolve = <T>(v: Dynamic<T>, t: Target): T => (typeof v === 'function' ? (v as (t: Target) => T)(t) : v);

export interface HttpOptions {
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  /** stores a value of the response body for later steps */
  save?: (body: any, t: Target) => void;
  /** reduces the body to what the exchange is about (e.g. item names of a list) */
  pick?: (body: any) => unknown;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // a watch stream is one JSON object per line
    const lines = text.split('\n').filter((l) => l.trim());
    try {
      return lines.map((l) => JSON.parse(l));
    } catch {
      return text;
    }
  }
}

export function http(
  area: string,
  name: string,
  method: string,
  path: Dynamic<string>,
  body?: Dynamic<unknown>,
  opts: HttpOptions = {},
): Step {
  return {
    name,
    area,
    counted: true,
    async run(t) {
      const r = await raw(t, method, resolve(path, t), body === undefined ? undefined : resolve(body, t), {
        ...opts,
        timeoutMs: 20_000,
      });
      const parsed = parseBody(r.text);
      opts.save?.(parsed, t);
      const warnings = r.headers.warning;
      const view = opts.pick ? opts.pick(parsed) : parsed;
      return { status: r.status, body: normaliseJson(warnings ? { body: view, warning: warnings } : view, t.url) };
    },
  };
}

export function kubectl(area: string, name: string, args: Dynamic<string[]>, input?: Dynamic<string>): Step {
  return {
    name,
    area,
    counted: true,
    async run(t) {
      const r = await runKubectl(
        ['--kubeconfig', t.kubeconfig, '--cache-dir', join(t.dir, 'cache'), ...resolve(args, t)],
        input === undefined ? undefined : resolve(input, t),
      );
      // column widths follow the widest cell, which an <age> no longer shows
      const text = (s: string) => normaliseText(s, t.url).replace(/ {2,}/g, '  ');
      return { status: r.code, body: { stdout: text(r.stdout), stderr: text(r.stderr) } };
    },
  };
}

export function wait(name: string, probe: (t: Target) => Promise<boolean>, timeoutMs = 60_000): Step {
  return {
    name,
    area: 'wait',
    counted: false,
    async run(t) {
      await waitFor(`${t.backend}: ${name}`, () => probe(t), { timeoutMs, intervalMs: 200 });
      return { status: 0, body: null };
    },
  };
}

/** an uncounted step that changes the backend's state, as an operator or the cluster would */
export function action(name: string, run: (t: Target) => Promise<void>): Step {
  return {
    name,
    area: 'action',
    counted: false,
    async run(t) {
      await run(t);
      return { status: 0, body: null };
    },
  };
}

/** true once GET `path` answers `status` */
export const answers = (path: Dynamic<string>, status: number) => async (t: Target) =>
  (await raw(t, 'GET', resolve(path, t))).status === status;
