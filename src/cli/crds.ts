// `modelplane crds`: every CRD modelplane serves, as multi-document YAML for `kubectl apply -f -`.

import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { aimCrds } from '../apis/aim/index.ts';
import { kubeairunwayCrds } from '../apis/kubeairunway/index.ts';
import { LLAMASTACK_CONVERSION_PATH, llamaStackCrd } from '../apis/llamastack/index.ts';
import { llmdCrds } from '../apis/llmd/index.ts';
import { DEFAULT_POD_NAMESPACE } from '../controllers/operator.ts';
import { WEBHOOK_SERVICE } from '../controllers/webhooks.ts';
import { conversionStanza } from '../webhooks/index.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

/** every CRD of ours, API group by API group */
export function allCrds(): CustomResourceDefinition[] {
  // the conversion webhook is served by the `webhooks` set behind deploy/'s webhook Service
  const llamaStackConversion = conversionStanza(LLAMASTACK_CONVERSION_PATH, {
    service: { name: WEBHOOK_SERVICE, namespace: DEFAULT_POD_NAMESPACE },
  });
  return [...aimCrds(), ...kubeairunwayCrds(), llamaStackCrd(llamaStackConversion), ...llmdCrds()];
}

export function crdsYaml(crds: CustomResourceDefinition[] = allCrds()): string {
  return crds.map((c) => `---\n${stringify(c, { lineWidth: 0 })}`).join('');
}

export function registerCrds(program: Command): void {
  program
    .command('crds')
    .description(COMMAND_SUMMARIES.crds)
    .action(() => {
      process.stdout.write(crdsYaml());
    });
}
