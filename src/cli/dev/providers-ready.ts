// Before the quickstart is applied, `modelplane dev` waits for every provider it started to report Ready on
// its InferenceProviderConfig. Selection only considers ready providers and is sticky once made
// (docs/kubeairunway.md, "Selection"), so a ModelDeployment applied while, say, Dynamo's heartbeat or upstream
// check is still in flight would be placed on llm-d for good: the quickstart would depend on the machine's speed.
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { InferenceProviderConfigs } from '../../apis/kubeairunway/index.ts';
import type { ControllerSet } from '../../controllers/registry.ts';
import { PROVIDER_SETS } from '../../controllers/sets.ts';

/** the providers among `sets` (`provider-<name>` registers InferenceProviderConfig <name>) */
export function providerNames(sets: readonly ControllerSet[]): string[] {
  return sets.filter((s) => PROVIDER_SETS.some((p) => p.name === s.name)).map((s) => s.name.replace(/^provider-/, ''));
}

/** the providers among `names` that are not Ready yet (missing, or status.ready not true) */
export async function providersNotReady(client: KubeClient, names: readonly string[]): Promise<string[]> {
  const ready = new Set(
    (await client.list(InferenceProviderConfigs)).items
      .filter((p) => p.status?.ready === true)
      .map((p) => p.metadata.name),
  );
  return names.filter((n) => !ready.has(n));
}

/** waits until every named provider is Ready, or `timeoutMs` passes (then warns and goes on) */
export async function waitForProviders(
  client: KubeClient,
  names: readonly string[],
  log: Logger,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let waiting = await providersNotReady(client, names);
  while (waiting.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    waiting = await providersNotReady(client, names).catch(() => waiting);
  }
  if (waiting.length > 0)
    log.warn('providers not Ready before the examples were applied: selection may choose another provider', {
      providers: waiting,
      waitedMs: timeoutMs,
    });
  else log.info('every provider is Ready', { providers: names });
}
