// The manager that runs controllers and other Runnables, with leader election.

export {
  apiLeaseStore,
  type Clock,
  type LeaderCallbacks,
  type LeaderElectionOptions,
  LeaderElector,
  type LeaseRecord,
  type LeaseStore,
  Leases,
  realClock,
  type StoredLease,
} from './leaderelection.ts';
export { type Check, type LeaderElectionConfig, Manager, type ManagerOptions, type Runnable } from './manager.ts';
