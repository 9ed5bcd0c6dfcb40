// Accessibility: axe-core on every page of the demo, with every chart's table opened, finds
// no serious or critical violation; each chart's table is reached with the keyboard.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { type DemoPage, postDemoPages } from './demo-pages.ts';

let pages: DemoPage[] = [];

test.beforeAll(async ({ baseURL }) => {
  test.setTimeout(180_000);
  pages = await postDemoPages(baseURL as string);
});

async function settle(page: Page, path: string) {
  await page.goto(path);
  // Not 'networkidle': the ingest page polls its counters for as long as it is open.
  await expect(page.locator('main h1').first()).toBeVisible();
  // Loading states are role="status"; so is Recharts' default tooltip, which stays in the page.
  await expect(page.locator('[role="status"]:not(.recharts-default-tooltip)')).toHaveCount(0);
  await page.waitForTimeout(300);
}

async function seriousViolations(page: Page) {
  const result = await new AxeBuilder({ page })
    // Only the violations are read: the other result types keep one node a rule instead of
    // every node checked, which axe would otherwise carry out of the page.
    .options({ resultTypes: ['violations'] })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    // axe.run in the page itself. The default runs a part in each frame and finishes in a
    // new blank page, carrying every checked node there as JSON: 4 to 5 times as long on the
    // runs list, with the same violations. The app has no frames, which is all this mode
    // leaves out (cross-origin ones).
    .setLegacyMode()
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('every page has no serious or critical axe violation, every table open', async ({ page }) => {
  // One axe run on each of eleven pages.
  test.setTimeout(600_000);
  for (const { name, path } of pages) {
    await test.step(name, async () => {
      await settle(page, path);
      // Opening every table only adds to the page (axe skips what a closed <details> hides),
      // so one pass with all open checks everything the closed page shows and the rest;
      // the 700 px test below checks the page as it opens.
      await page.evaluate("for (const d of document.querySelectorAll('details')) d.open = true");
      expect(await seriousViolations(page), `${name}, every table open`).toEqual([]);
    });
  }
});

test('at 700 px too, as the page opens, scrolling tables included', async ({ page }) => {
  test.setTimeout(600_000);
  await page.setViewportSize({ width: 700, height: 900 });
  for (const { name, path } of pages) {
    await test.step(name, async () => {
      await settle(page, path);
      expect(await seriousViolations(page), name).toEqual([]);
    });
  }
});

test("a chart's table is reached with the keyboard", async ({ page }) => {
  const run = pages.find((p) => p.name === 'propagation run');
  if (!run) throw new Error('no propagation run');
  await settle(page, run.path);
  const summary = page.locator('details summary').first();
  await expect(summary).toBeVisible();
  // Tab from the top of the page until the first table's summary has the focus.
  await page.locator('body').focus();
  let reached = false;
  for (let i = 0; i < 80 && !reached; i++) {
    await page.keyboard.press('Tab');
    // A string is evaluated as an expression (a function written as a string is not called).
    reached = (await page.evaluate(
      "document.activeElement !== null && document.activeElement === document.querySelector('details summary')",
    )) as boolean;
  }
  expect(reached, 'the table summary takes the focus').toBe(true);
  await page.keyboard.press('Enter');
  await expect(page.locator('details[open] table').first()).toBeVisible();
});
