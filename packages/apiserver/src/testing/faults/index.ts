// Fault injection for test clusters, the same interface on both backends (docs/real-kubernetes.md).
import type { ApiServer } from '../../api.ts';
import type { RealControlPlane } from '../../real/index.ts';
import { embeddedFaultInjection } from './embedded.ts';
import { realFaultInjection } from './real.ts';
import type { FaultInjection } from './types.ts';

/** fault injection on an embedded API server or on a real control plane (a fault proxy in front of it) */
export async function startFaultInjection(server: ApiServer | RealControlPlane): Promise<FaultInjection> {
  return 'faults' in server ? embeddedFaultInjection(server) : realFaultInjection(server);
}

export { FaultProxy, startFaultProxy } from './proxy.ts';
export type { FaultedRequest, FaultInjection, FaultSpec, TestFaults } from './types.ts';
