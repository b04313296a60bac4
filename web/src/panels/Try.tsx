// "Try it" on ModelDeployment and AIMService pages: the model's endpoints with a curl to copy, and a chat box
// that sends one message through the shared Gateway (the dashboard server builds the request from the object
// and what it owns) and shows the answer and how long it took.
import { useState } from 'react';
import type { TryPanel } from '../../../src/cli/dashboard/types.ts';
import { sendChat } from '../api.ts';
import { Table } from '../Table.tsx';

function Copy({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="more"
      aria-label={label}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

interface Reply {
  answer?: string;
  error?: string;
  latencyMs?: number;
}

function Chat({ resourceKey, model }: { resourceKey: string; model: string }) {
  const [message, setMessage] = useState('Hello! What can you do?');
  const [busy, setBusy] = useState(false);
  const [reply, setReply] = useState<Reply>();
  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const r = await sendChat(resourceKey, message);
      setReply(r.body);
    } catch (err) {
      setReply({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="chat" onSubmit={(e) => void send(e)}>
      <label htmlFor="chat-message">Message to {model || 'the model'}</label>
      <textarea
        id="chat-message"
        rows={2}
        value={message}
        onChange={(e) => setMessage(e.target.value)}
        maxLength={2000}
      />
      <button type="submit" disabled={busy || message.trim() === ''}>
        {busy ? 'Sending…' : 'Send through the Gateway'}
      </button>
      <div role="status" aria-live="polite" className="chat-reply">
        {reply?.answer !== undefined && (
          <>
            <p className="answer" data-latency-ms={reply.latencyMs}>
              {reply.answer}
            </p>
            <p className="note">Answered in {reply.latencyMs} ms through the Gateway.</p>
          </>
        )}
        {reply?.error && <p className="error">{reply.error}</p>}
      </div>
    </form>
  );
}

export function TryView({ panel, resourceKey }: { panel: TryPanel; resourceKey: string }) {
  return (
    <section aria-labelledby="h-try" className="panel try">
      <h2 id="h-try">Try it</h2>
      {panel.endpoints.length === 0 ? (
        <p>No endpoint yet: the status names one once the model is served.</p>
      ) : (
        <Table columns={['Endpoint', 'URL', 'curl']}>
          {panel.endpoints.map((e) => (
            <tr key={e.via} data-via={e.via}>
              <td>{e.note}</td>
              <td>
                <code>{e.url}</code>
              </td>
              <td>
                <pre className="curl">{e.curl}</pre>
                <Copy text={e.curl} label={`Copy the curl ${e.note}`} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      {panel.canChat ? (
        <Chat resourceKey={resourceKey} model={panel.model} />
      ) : (
        <p className="no-chat">
          The chat box appears once the model is routed through the Gateway
          {panel.noChat ? `; now: ${panel.noChat}` : ''}.
        </p>
      )}
    </section>
  );
}
