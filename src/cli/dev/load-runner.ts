// The dashboard's "send load" button in `modelplane dev` (docs/dashboard.md): what `modelplane load
// --service <the variant's Service> --model <its modelID> --duration 60` does, run in this process against the
// simulated pods. The variant decides everything: its scale target's pods pick the Service, its modelID the
// model; one load per variant at a time.
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { runLoad } from '@modelplane/sim/inference';
import { LoadRefusal, type LoadRunner } from '../dashboard/index.ts';
import { serviceTargets } from '../load/command.ts';

/** a minute of 14 clients: enough to saturate a simulated replica of the quickstart, and to watch it end */
export const BUTTON_LOAD = { durationMs: 60_000, concurrency: 14, maxTokens: 128 } as const;

interface Selecting extends KubeObject {
  spec?: { selector?: Record<string, string>; template?: { metadata?: { labels?: Record<string, string> } } };
}
const Services = kindRef<Selecting>('v1', 'Service');
const Deployments = kindRef<Selecting>('apps/v1', 'Deployment');

/** the Service whose selector picks the pods of the variant's Deployment (the first by name), if any */
export async function variantService(client: KubeClient, va: KubeObject): Promise<string | undefined> {
  const ns = va.metadata.namespace ?? '';
  const ref = (va as { spec?: { scaleTargetRef?: { kind?: string; name?: string } } }).spec?.scaleTargetRef;
  if (ref?.kind !== 'Deployment' || !ref.name) return undefined;
  const target = await client.getOrUndefined(Deployments, ref.name, ns);
  const labels = target?.spec?.template?.metadata?.labels ?? {};
  const services = (await client.list(Services, { namespace: ns })).items;
  return services
    .filter((s) => {
      const sel = Object.entries(s.spec?.selector ?? {});
      return sel.length > 0 && sel.every(([k, v]) => labels[k] === v);
    })
    .map((s) => s.metadata.name!)
    .sort()[0];
}

export function devLoadRunner(client: KubeClient, log: Logger, now: () => number = Date.now): LoadRunner {
  const running = new Map<string, number>();
  return {
    runningUntil: (key) => running.get(key),
    async start(va, key) {
      if (running.has(key)) throw new LoadRefusal(409, `a load on ${key} is already running; it ends by itself`);
      const modelID = (va as { spec?: { modelID?: string } }).spec?.modelID;
      const ns = va.metadata.namespace ?? '';
      const service = await variantService(client, va);
      if (!modelID || !service)
        throw new LoadRefusal(
          422,
          `VariantAutoscaling ${ns}/${va.metadata.name}: ${!modelID ? 'spec.modelID is empty' : 'no Service in its namespace selects the pods of its spec.scaleTargetRef Deployment'}; there is nothing to send load to`,
        );
      const until = now() + BUTTON_LOAD.durationMs;
      running.set(key, until);
      log.info('sending load from the dashboard', { variant: key, service: `${ns}/${service}`, model: modelID });
      void runLoad({
        targets: () => serviceTargets(client, ns, service),
        model: modelID,
        concurrency: BUTTON_LOAD.concurrency,
        durationMs: BUTTON_LOAD.durationMs,
        maxTokens: BUTTON_LOAD.maxTokens,
      })
        .then((s) => log.info('dashboard load finished', { variant: key, ok: s.ok, errors: s.errors }))
        .catch((err) => log.warn('dashboard load failed', { variant: key, error: err }))
        .finally(() => running.delete(key));
      return { until };
    },
  };
}
