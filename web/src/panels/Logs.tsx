// A pod's log, live: the backend streams it over Server-Sent Events (the last lines, then what is new), one
// container at a time; the view follows the end unless the reader scrolled up.
import { useEffect, useRef, useState } from 'react';

export function PodLogs({ podKey }: { podKey: string }) {
  const [containers, setContainers] = useState<string[]>([]);
  const [container, setContainer] = useState<string>();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    setText('');
    setProblem(undefined);
    const q = `key=${encodeURIComponent(podKey)}${container ? `&container=${encodeURIComponent(container)}` : ''}`;
    const es = new EventSource(`/api/stream/logs?${q}`);
    es.addEventListener('container', (e) => {
      const m = JSON.parse((e as MessageEvent).data) as { container: string; containers: string[] };
      setContainers(m.containers);
      setContainer((c) => c ?? m.container);
    });
    es.addEventListener('log', (e) => {
      const m = JSON.parse((e as MessageEvent).data) as { text: string; reset: boolean };
      // keep the page light: the newest 200 kB
      setText((t) => (m.reset ? m.text : t + m.text).slice(-200_000));
      setProblem(undefined);
    });
    es.addEventListener('problem', (e) =>
      setProblem((JSON.parse((e as MessageEvent).data) as { message: string }).message),
    );
    return () => es.close();
  }, [podKey, container]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the text as it grows
  useEffect(() => {
    const el = pre.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [text]);
  return (
    <section aria-labelledby="h-logs" className="panel">
      <h2 id="h-logs">Logs</h2>
      {containers.length > 1 && (
        <p>
          <label htmlFor="log-container">Container </label>
          <select id="log-container" value={container} onChange={(e) => setContainer(e.target.value)}>
            {containers.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </p>
      )}
      {problem && <p className="error">The log could not be read: {problem}</p>}
      <pre ref={pre} className="logs" aria-live="off" data-log-container={container ?? ''}>
        {text || 'No log lines yet.'}
      </pre>
    </section>
  );
}
