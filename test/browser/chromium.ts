// Debian's Chromium driven by playwright-core, for the browser tests and the dashboard benchmark:
// headless, no sandbox (CI runs as root), nothing that reaches the network, a fresh profile each time.
// scripts/setup-browser.sh installs it when absent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.MODELPLANE_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'modelplane-chromium-'));
  // launchPersistentContext is how playwright passes --user-data-dir: a fresh, throw-away profile
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
