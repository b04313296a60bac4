// What every browser test checks on a page: a screenshot (to test-artifacts/browser/, and to docs/images/ with
// MODELPLANE_UPDATE_SCREENSHOTS=1, which `npm run screenshots` sets) and axe-core's serious violations.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS } from './fixture.ts';

const AXE_SOURCE = readFileSync(resolve('node_modules/axe-core/axe.min.js'), 'utf8');

export async function shot(page: Page, name: string): Promise<void> {
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.MODELPLANE_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(resolve('docs/images'), { recursive: true });
    copyFileSync(file, resolve(`docs/images/dashboard-${name}.png`));
  }
}

/** axe-core on the page as it is; returns the serious and critical violations, described */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated through the debugging protocol: the dashboard's Content-Security-Policy forbids inline scripts
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as {
      document: unknown;
      axe: {
        run(
          ctx: unknown,
          o: object,
        ): Promise<{
          violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
        }>;
      };
    };
    const r = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}
