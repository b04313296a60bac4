// Fault injection on the embedded backend: the server's own injector, which sees every client.
import type { ApiServer } from '../../api.ts';
import type { FaultInjection } from './types.ts';

export function embeddedFaultInjection(server: ApiServer): FaultInjection {
  const f = () => server.faults;
  return {
    backend: 'embedded',
    faults: {
      add: (spec) => f().add(spec),
      remove: (id) => f().remove(id),
      clear: () => f().clear(),
      list: () => f().list(),
      closeWatches: () => f().closeWatches(),
      stallWatches: (on) => f().stallWatches(on),
      expireWatches: async () => f().expireWatches(),
      faulted: () => f().faulted(),
    },
    route: (kubeconfigYaml) => kubeconfigYaml,
    // state survives only when the server was started with a data directory
    restartApiServer: () => server.restart(),
    stop: async () => f().clear(),
  };
}
