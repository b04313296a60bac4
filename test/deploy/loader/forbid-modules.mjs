// `node --import ./forbid-modules.mjs …`: registers forbid-modules-hooks.mjs, which fails the import of any
// module under the folders MODELPLANE_FORBID_MODULES lists (JSON array of absolute paths) and appends every
// module URL the process resolves to MODELPLANE_MODULE_LOG. test/deploy/entry-graph.integration.test.ts uses it
// to prove, from the real module graph, that the production commands load nothing of the API server or the
// simulators.
import { register } from 'node:module';

register('./forbid-modules-hooks.mjs', import.meta.url, {
  data: {
    forbidden: JSON.parse(process.env.MODELPLANE_FORBID_MODULES ?? '[]'),
    log: process.env.MODELPLANE_MODULE_LOG ?? '',
  },
});
