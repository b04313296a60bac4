// The dev cluster with every controller and provider but no admission webhooks (failurePolicy Ignore, as
// when the webhook server is down), for the suites that probe what a stored invalid edit does.
import { Logger } from '@modelplane/runtime/log';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../../src/controllers/sets.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';

export function startWebhooksDownCluster(namespace: string): Promise<DevTestCluster> {
  return startDevTestCluster({
    log: new Logger({ level: 'error' }),
    controllers: true,
    sets: [...CONTROLLER_SETS.filter((s) => s.name !== 'webhooks'), ...PROVIDER_SETS],
    namespaces: [namespace],
  });
}
