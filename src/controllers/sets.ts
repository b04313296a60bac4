// Every controller set modelplane ships. CONTROLLER_SETS run in the operator (`modelplane run`);
// PROVIDER_SETS each run as their own process (`modelplane provider <name>`). Add a set here with its RBAC
// rules; deploy/rbac and the CLI pick it up.
import { aimControllerSet } from './aim/index.ts';
import { kubeairunwayCoreSet } from './kubeairunway/core/index.ts';
import { providerControllerSet } from './kubeairunway/provider/index.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from './kubeairunway/providers/index.ts';
import { llamaStackControllerSet } from './llamastack/index.ts';
import { autoscalerControllerSet } from './llmd/index.ts';
import type { ControllerSet } from './registry.ts';
import { webhooksSet } from './webhooks.ts';

export const CONTROLLER_SETS: readonly ControllerSet[] = [
  aimControllerSet(),
  kubeairunwayCoreSet(),
  llamaStackControllerSet(),
  webhooksSet(),
  autoscalerControllerSet(),
];

// shipped providers check their upstream operator is running, not only that its CRD is served
export const PROVIDER_SETS: readonly ControllerSet[] = Object.values(BUILTIN_PROVIDER_DEFINITIONS).map((d) =>
  providerControllerSet(d, d.operatorSelector ? { operatorSelector: d.operatorSelector } : {}),
);

export const ALL_PROCESS_SETS: readonly ControllerSet[] = [...CONTROLLER_SETS, ...PROVIDER_SETS];
