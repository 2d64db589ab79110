/**
 * A real browser for the page tests (test/console/): Debian's Chromium (/usr/bin/chromium, installed by
 * scripts/ensure-chromium.sh, which `npm test` runs first) driven by playwright-core, headless, with a
 * fresh profile, nothing fetched in the background. One browser per test file. Missing Chromium fails
 * the file loudly: the browser tests never pass by being skipped.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.HUSH_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export interface TestBrowser {
  context: BrowserContext;
  page(): Promise<Page>;
  close(): Promise<void>;
}

export async function startBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's Chromium (npm test installs it when run as root: scripts/ensure-chromium.sh; or apt-get install chromium chromium-driver)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'hush-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1100, height: 900 } });
  return {
    context,
    async page() {
      const page = await context.newPage();
      // A script error on the page fails the test that caused it.
      page.on('pageerror', (e) => errors.push(e));
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      assert.deepEqual(errors.map(String), [], 'no script error on any page');
    },
  };
}
const errors: Error[] = [];

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is now: every violation fails, listed with its
 * rule and the elements it found. Run by DevTools evaluation, so the page's own CSP (no inline script) stays on.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  });
  assert.deepEqual(violations, [], `${what}: accessibility violations`);
}

/** Presses Tab until `selector` has the focus (at most `max` times): proves it is reachable by keyboard alone. */
export async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} was not reached with Tab (${max} presses)`);
}
