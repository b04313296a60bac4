// The reconcile engine (seed 001): FetchResult, ComponentHealth, error categories, ConditionManager, the
// state engine, PlanResult and the pipeline. Controllers import from here; see docs/controllers.md.

export * from './apply.ts';
export * from './conditions.ts';
export * from './errors.ts';
export * from './fetch-result.ts';
export * from './grace.ts';
export * from './health.ts';
export * from './inspectors/diagnostics.ts';
export * from './inspectors/log-patterns.ts';
export * from './inspectors/pods.ts';
export * from './inspectors/types.ts';
export * from './inspectors/workloads.ts';
export * from './labels.ts';
export * from './owned-fields.ts';
export * from './pipeline.ts';
export * from './plan.ts';
export * from './references.ts';
export * from './report.ts';
export * from './settle.ts';
export * from './state-engine.ts';
export * from './status-helper.ts';
export * from './types.ts';
