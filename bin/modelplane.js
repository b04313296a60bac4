#!/usr/bin/env node
// Entry point for `npx modelplane`: runs the TypeScript CLI through tsx's ESM loader.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/main.ts');
