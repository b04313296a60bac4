// Authentication and authorization live in ./auth/; this module keeps the original import path working.
export * from './auth/index.ts';
