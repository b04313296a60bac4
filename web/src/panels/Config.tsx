// The generated Llama Stack configuration; secrets appear only as the references the server resolves.
import type { ConfigPanel } from '../../../src/cli/dashboard/types.ts';

export function ConfigView({ panel }: { panel: ConfigPanel }) {
  const id = `h-config-${panel.title.replace(/[^A-Za-z0-9]/g, '-')}`;
  return (
    <section aria-labelledby={id} className="panel">
      <h2 id={id}>Generated config: {panel.title}</h2>
      <p>
        From {panel.source}.{' '}
        {panel.secretRefs.length > 0 ? (
          <>
            Secrets are referenced, never shown:{' '}
            {panel.secretRefs.map((r) => (
              <code key={r}>{r} </code>
            ))}
          </>
        ) : (
          'No secret references.'
        )}
      </p>
      <pre className="config">{panel.text}</pre>
    </section>
  );
}
