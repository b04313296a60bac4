// Fault injection on the embedded backend: the server's own injector, which sees every client.
import type { ApiServer } from '../../api.ts';
import type { FaultInjection } from './types.ts';

export function embeddedFaultInjection(server: ApiServer): FaultInjection {
  // the handle's controls act on whichever server runs behind it, so they outlive a restart
  const f = server.faults;
  return {
    backend: 'embedded',
    faults: { ...f, expireWatches: async () => f.expireWatches() },
    route: (kubeconfigYaml) => kubeconfigYaml,
    // state survives only when the server was started with a data directory
    restartApiServer: () => server.restart(),
    stop: async () => f.clear(),
  };
}
