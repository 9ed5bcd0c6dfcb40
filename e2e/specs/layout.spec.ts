// Small screens and print: at 700 px and on an A4 page (print media, the page's printable
// width), no element is wider than the page unless it sits in a box that scrolls sideways,
// and no two tick labels of a chart's axis overlap. A report prints as a document: its title,
// its runs, the date it was made and its link.
import { expect, type Page, test } from '@playwright/test';
import { type DemoPage, postDemoPages } from './demo-pages.ts';

let pages: DemoPage[] = [];

test.beforeAll(async ({ baseURL }) => {
  test.setTimeout(180_000);
  pages = await postDemoPages(baseURL as string);
});

/** A4 is 210 mm wide; the print style sheet's margins are 12 mm each side. At 96 px an inch. */
const A4_PRINTABLE_PX = Math.floor(((210 - 2 * 12) / 25.4) * 96);

async function settle(page: Page, path: string) {
  await page.goto(path);
  // Not 'networkidle': the ingest page polls its counters for as long as it is open.
  await expect(page.locator('main h1').first()).toBeVisible();
  // Loading states are role="status"; so is Recharts' default tooltip, which stays in the page.
  await expect(page.locator('[role="status"]:not(.recharts-default-tooltip)')).toHaveCount(0);
  await page.waitForTimeout(300);
}

// Runs in the page: elements past the right edge that no sideways-scrolling box holds, and
// pairs of tick labels on one axis whose boxes overlap or touch.
const MEASURE = `(() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1 || scrolls(el)) continue;
    const cls = typeof el.className === 'string' ? el.className : '';
    wide.push(el.tagName.toLowerCase() + (cls ? '.' + cls.split(' ').join('.') : '') + ' ' + Math.round(r.right) + 'px');
  }
  // Labels side by side need a space between them: "1 ms10 ms" touches without overlapping.
  const GAP = 3;
  const overlaps = [];
  for (const axis of document.querySelectorAll('.recharts-cartesian-axis-ticks')) {
    const boxes = [...axis.querySelectorAll('text')].map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() })).filter((b) => b.r.width > 0);
    for (let i = 1; i < boxes.length; i++) {
      for (let j = 0; j < i; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        if (a.left < b.right + GAP && b.left < a.right + GAP && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps.push(boxes[j].text + ' / ' + boxes[i].text);
      }
    }
  }
  return { width, wide: wide.slice(0, 10), overlaps: overlaps.slice(0, 10) };
})()`;

interface Measured {
  width: number;
  wide: string[];
  overlaps: string[];
}

test('at 700 px nothing is wider than the window outside a scrolling box', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 700, height: 900 });
  for (const { name, path } of pages) {
    await test.step(name, async () => {
      await settle(page, path);
      const m = (await page.evaluate(MEASURE)) as Measured;
      expect(m.width).toBe(700);
      expect(m.wide, `${name}: wider than 700 px`).toEqual([]);
      expect(m.overlaps, `${name}: tick labels overlap`).toEqual([]);
    });
  }
});

test('the compare table shows every run at 700 px', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 900 });
  const compare = pages.find((p) => p.name === 'compare');
  if (!compare) throw new Error('no compare page');
  await settle(page, compare.path);
  const table = page.getByTestId('delta-table');
  const box = await table.locator('xpath=..').boundingBox();
  const heads = table.locator('th.run-head');
  await expect(heads).toHaveCount(3);
  for (let i = 0; i < 3; i++) {
    const head = await heads.nth(i).boundingBox();
    expect(head && box && head.x + head.width <= box.x + box.width + 1, `run ${i} in view`).toBe(
      true,
    );
  }
});

test('in print on A4, every page fits the page width', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: A4_PRINTABLE_PX, height: 1100 });
  await page.emulateMedia({ media: 'print' });
  for (const { name, path } of pages) {
    await test.step(name, async () => {
      await settle(page, path);
      const m = (await page.evaluate(MEASURE)) as Measured;
      expect(m.wide, `${name}: wider than the A4 page`).toEqual([]);
      expect(m.overlaps, `${name}: tick labels overlap`).toEqual([]);
    });
  }
});

test('a report prints as a document: title, runs, date and link', async ({ page }) => {
  const report = pages.find((p) => p.name === 'report');
  if (!report) throw new Error('no report');
  await page.setViewportSize({ width: A4_PRINTABLE_PX, height: 1100 });
  await page.emulateMedia({ media: 'print' });
  await settle(page, report.path);
  await expect(page.getByTestId('report-title')).toHaveText('Endpoint propagation on three meshes');
  const head = page.getByTestId('report-print-head');
  await expect(head).toBeVisible();
  await expect(head).toContainText(new URL(report.path, page.url()).href);
  await expect(page.getByTestId('report-note')).toContainText(/made \d{4}-\d{2}-\d{2}/);
  for (const mesh of ['linkerd', 'istio', 'consul']) {
    await expect(page.locator('.report-headline')).toContainText(mesh);
  }
  // The screen's controls are not printed.
  await expect(page.locator('.topbar')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Print' })).toBeHidden();
  const pdf = await page.pdf({ format: 'A4' });
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
});

const page_ = (name: string) => {
  const found = pages.find((p) => p.name === name);
  if (!found) throw new Error(`no ${name} page`);
  return found;
};

/** A4's printable height (297 mm less the 12 mm margins) at 96 px an inch. */
const A4_PRINTABLE_HEIGHT_PX = Math.floor(((297 - 2 * 12) / 25.4) * 96);

// Runs in the page (print media): what a printed page would show that it should not (a
// control, the navigation), and each chart that could be split across two sheets: one not
// inside a box that avoids breaks inside it, or inside one taller than a sheet.
const PRINT_FAULTS = `(() => {
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const name = (el) => el.tagName.toLowerCase() + (el.getAttribute('data-testid') ? '[' + el.getAttribute('data-testid') + ']' : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '');
  const controls = [...document.querySelectorAll('nav, button, select, input, textarea, [role="tab"], .segmented')].filter(shown).map(name);
  const split = [];
  for (const svg of document.querySelectorAll('svg.recharts-surface')) {
    if (!shown(svg)) continue;
    let box = null;
    for (let p = svg; p; p = p.parentElement) {
      if (getComputedStyle(p).breakInside === 'avoid') { box = p; break; }
    }
    if (!box) split.push(name(svg.parentElement) + ': in no unbreakable box');
    else if (box.getBoundingClientRect().height > ${A4_PRINTABLE_HEIGHT_PX}) split.push(name(box) + ': taller than a sheet');
  }
  return { controls: controls.slice(0, 10), split: split.slice(0, 10) };
})()`;

test('in print, run pages and reports show their sentence and charts, no controls, no chart split', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: A4_PRINTABLE_PX, height: 1100 });
  await page.emulateMedia({ media: 'print' });
  for (const name of ['propagation run', 'data-plane run', 'churn run', 'report', 'churn report']) {
    await test.step(name, async () => {
      await settle(page, page_(name).path);
      await expect(page.getByTestId('run-summary').first()).toBeVisible();
      await expect(page.locator('.topbar')).toBeHidden();
      const m = (await page.evaluate(PRINT_FAULTS)) as { controls: string[]; split: string[] };
      expect(m.controls, `${name}: controls printed`).toEqual([]);
      expect(m.split, `${name}: charts that may split across sheets`).toEqual([]);
    });
  }
  // The report of three runs prints in few sheets: 12 before the print sheet was tightened,
  // 9 at the A4 width with it; 6 since its appendix leaves out what the sheets above print
  // (the facts in each run's card, each run's tail causes and convergence curve), a change's
  // histogram and slowest proxies share a row, and so do the comparison's convergence and
  // tail causes. A churn run's page prints its pooled view, heatmap and table of changes, not
  // the one change opened under them on screen: 3 sheets, from 5.
  const sheets = async (name: string) => {
    await settle(page, page_(name).path);
    const pdf = (await page.pdf({ format: 'A4' })).toString('latin1');
    const n = pdf.match(/\/Type\s*\/Page[^s]/g)?.length ?? 0;
    test.info().annotations.push({ type: 'sheets', description: `${name}: ${n}` });
    expect(n).toBeGreaterThan(0);
    return n;
  };
  expect(await sheets('report'), 'sheets of the three-run report').toBeLessThanOrEqual(7);
  expect(await sheets('churn run'), 'sheets of the churn run page').toBeLessThanOrEqual(3);
});

test('a churn report draws a change only when it is opened', async ({ page }) => {
  await settle(page, page_('churn report').path);
  const folds = page.getByTestId('report-change-fold');
  await expect(folds).toHaveCount(20);
  await expect(folds.first()).toContainText(/P50 .* P99 /);
  // Folded: no change's table or chart is in the page.
  await expect(page.getByTestId('report-change')).toHaveCount(0);
  await expect(page.locator('[data-testid="report-histogram"]')).toHaveCount(0);
  await folds.nth(3).locator('summary').click();
  await expect(page.getByTestId('report-change')).toHaveCount(1);
  await expect(page.getByTestId('report-change')).toHaveAttribute('data-change-id', 'churn-04');
  await expect(page.getByTestId('percentile-table')).toHaveCount(1);
});

// Runs in the page: cells of the percentile tables past the right edge of their box (or of
// the window), and values whose number and unit fell on two lines.
const TABLE_FAULTS = `(() => {
  const out = [];
  const tables = document.querySelectorAll('[data-testid="percentile-table"], [data-testid="latency-table"], [data-testid="coverage-table"]');
  for (const table of tables) {
    const wrap = table.closest('.table-wrap') || table;
    const right = Math.min(wrap.getBoundingClientRect().right, document.documentElement.clientWidth);
    for (const cell of table.querySelectorAll('th, td')) {
      const r = cell.getBoundingClientRect();
      if (r.width > 0 && r.right > right + 1) out.push(cell.textContent + ': cut at ' + Math.round(right));
    }
    for (const cell of table.querySelectorAll('td')) {
      if (!cell.textContent.includes(' ') || cell.querySelector('.clock-bound')) continue;
      const range = document.createRange();
      range.selectNodeContents(cell.querySelector('.pct') || cell);
      const tops = new Set([...range.getClientRects()].map((b) => Math.round(b.top)));
      if (tops.size > 1) out.push(cell.textContent + ': on ' + tops.size + ' lines');
    }
  }
  return out;
})()`;

test('at 700 px every column of the percentile tables is in view, each value on one line', async ({
  page,
}) => {
  await page.setViewportSize({ width: 700, height: 900 });
  await settle(page, page_('propagation run').path);
  const tables = page.locator(
    '[data-testid="percentile-table"], [data-testid="latency-table"], [data-testid="coverage-table"]',
  );
  await expect(tables).toHaveCount(3);
  await expect(page.getByTestId('pct-p99')).toBeVisible();
  const faults = (await page.evaluate(TABLE_FAULTS)) as string[];
  expect(faults).toEqual([]);
});
