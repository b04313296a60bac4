// A pod's log, streamed to the browser over Server-Sent Events (GET /api/stream/logs?key=<pod key>&container=
// <name>): the last lines first, then what the container writes. The log is read through the API server's
// pods/log with the user's credentials, every LOG_POLL_MS (the embedded API server serves no `follow`), and
// only what is new is sent: `{text, reset}`, reset when the log no longer continues the text sent so far (the
// container restarted). The pod and container are checked against what the dashboard sees; nothing else is read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '@modelplane/runtime/meta';
import { openEventStream, sendJson } from './http.ts';
import type { DashboardState } from './state.ts';

export const LOG_POLL_MS = 1_000;
export const LOG_TAIL_LINES = 500;

/** what to send after `before` was sent and the log now reads `now` (pure) */
export function logDelta(before: string, now: string): { text: string; reset: boolean } | undefined {
  if (now === before) return undefined;
  if (before !== '' && now.startsWith(before)) return { text: now.slice(before.length), reset: false };
  // a tail window that moved on: the new text starts with the old one's last lines (the longest such end)
  for (let i = before.indexOf('\n') + 1; i > 0 && i < before.length; i = before.indexOf('\n', i) + 1) {
    const end = before.slice(i);
    if (now.startsWith(end)) {
      const text = now.slice(end.length);
      return text === '' ? undefined : { text, reset: false };
    }
  }
  return { text: now, reset: true };
}

export function streamLogs(
  req: IncomingMessage,
  res: ServerResponse,
  state: DashboardState,
  key: string,
  container: string | null,
): void {
  const pod = state.find(key);
  if (pod?.kind !== 'Pod') {
    sendJson(res, 404, { error: `no pod ${key} is visible to the dashboard` });
    return;
  }
  const containers = ((pod as { spec?: { containers?: Array<{ name: string }> } }).spec?.containers ?? []).map(
    (c) => c.name,
  );
  const name = container ?? containers[0];
  if (!name || !containers.includes(name)) {
    sendJson(res, 404, {
      error: `pod ${key} has no container ${JSON.stringify(container)}; it has ${containers.join(', ') || 'none'}`,
    });
    return;
  }
  let closed = false;
  let sent = '';
  let timer: NodeJS.Timeout | undefined;
  const send = openEventStream(req, res, () => {
    closed = true;
    clearTimeout(timer);
  });
  const read = async () => {
    try {
      const now = await state.client.podLog(pod.metadata.namespace ?? '', pod.metadata.name ?? '', {
        container: name,
        tailLines: LOG_TAIL_LINES,
      });
      const delta = logDelta(sent, now);
      if (delta && !closed) send('log', delta);
      sent = now;
    } catch (err) {
      if (!closed) send('problem', { message: (err as Error).message });
    }
    if (!closed) timer = setTimeout(read, LOG_POLL_MS);
  };
  send('container', { pod: podName(pod), container: name, containers });
  void read();
}

const podName = (pod: KubeObject) => `${pod.metadata.namespace}/${pod.metadata.name}`;
