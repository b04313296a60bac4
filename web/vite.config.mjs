// Builds the dashboard's front end into web/dist (run by `npm ci` through scripts/build-web.mjs, or on the
// first start when missing). See docs/dashboard.md for why React + Vite.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
});
