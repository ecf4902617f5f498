import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { imageStats } from './browser.js';

/** The screenshots of every page at every width: test-results/screenshots/<width>/<name>.png. */
export const LAYOUT_SCREENSHOTS = join('test-results', 'screenshots');

/** A desktop and a phone (an iPhone 12–15 is 390 × 844 CSS pixels). */
export const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** What sticks out of the viewport: the page's own scroll width, and the elements past its right edge. */
export interface Overflow {
  viewport: number;
  scrollWidth: number;
  /** Elements whose right edge passes the viewport with no scroll box around them. */
  offenders: string[];
}

/**
 * Runs in the page (a string, as the project compiles without DOM types). An element may reach
 * past the viewport only inside a scroll box: an ancestor whose overflow-x clips or scrolls,
 * which is itself checked like every other element.
 */
const MEASURE = `(() => {
  const viewport = window.innerWidth;
  const offenders = [];
  const clips = (el) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right <= viewport + 1 && box.left >= -1) continue;
    let boxed = false;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (clips(up)) { boxed = true; break; }
    }
    if (boxed) continue;
    const id = el.id ? '#' + el.id : '';
    const cls = el.classList.length ? '.' + [...el.classList].join('.') : '';
    const text = (el.textContent || '').trim().slice(0, 40);
    offenders.push(el.tagName.toLowerCase() + id + cls + ' right=' + Math.round(box.right) + ' "' + text + '"');
  }
  return { viewport, scrollWidth: document.documentElement.scrollWidth, offenders: offenders.slice(0, 12) };
})()`;

export async function measureOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(MEASURE) as Promise<Overflow>;
}

/** Passes when the page fits its viewport: no horizontal page scroll, nothing sticking out unboxed. */
export function assertFits(overflow: Overflow, label: string): void {
  assert.ok(
    overflow.scrollWidth <= overflow.viewport + 1 && overflow.offenders.length === 0,
    `${label} overflows at ${overflow.viewport} px: page ${overflow.scrollWidth} px wide; ` +
      `sticking out: ${overflow.offenders.join('; ') || 'nothing (the page itself is too wide)'}`,
  );
}

/** A full-page screenshot under test-results/screenshots/<width>/, checked to show something. */
export async function saveScreenshot(
  browser: Browser,
  page: Page,
  width: number,
  name: string,
): Promise<void> {
  const dir = join(LAYOUT_SCREENSHOTS, String(width));
  mkdirSync(dir, { recursive: true });
  const png = await page.screenshot({ fullPage: true, type: 'png' });
  writeFileSync(join(dir, `${name}.png`), png);
  const stats = await imageStats(browser, png);
  assert.ok(stats.colours >= 20 && stats.luminanceStdDev >= 8, `${name} at ${width} px is not blank`);
}

/** A page to visit: its dashboard-relative URL and a file-safe name. */
export interface PageToVisit {
  name: string;
  url: string;
}

/**
 * Every page a visitor reaches by following links: the navigation's links, then the links on
 * those pages, to `depth` clicks, one page per kind (job ids are one kind, and so are the
 * values of query parameters), at most `cap` pages, besides the named `seeds`, which are
 * visited whatever their kind. Pages added later are found the same way.
 */
export async function discoverPages(
  page: Page,
  root: string,
  seeds: PageToVisit[],
  { depth = 2, cap = 40 } = {},
): Promise<PageToVisit[]> {
  const origin = new URL(root).origin;
  const found = new Map<string, PageToVisit>();
  await page.goto(root);
  const nav = await linksIn(page, 'header nav a[href]');
  let frontier = nav.filter((url) => new URL(url).origin === origin);
  for (const url of frontier) add(found, url, root);
  // The named pages are visited whatever their kind, and their links are followed too.
  frontier.push(...seeds.map((seed) => seed.url));
  for (let level = 1; level < depth + 1 && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const url of frontier) {
      if (found.size >= cap) break;
      const response = await page.goto(url);
      if (!response || response.status() >= 400) continue;
      for (const link of await linksIn(page, 'a[href]')) {
        const target = new URL(link);
        if (target.origin !== origin || target.pathname.endsWith('/logout')) continue;
        if (found.size < cap && add(found, link, root)) next.push(link);
      }
    }
    frontier = next;
  }
  return [...seeds, ...found.values()];
}

async function linksIn(page: Page, selector: string): Promise<string[]> {
  const hrefs = await page.$$eval(selector, (links) =>
    links.map((link) => (link as unknown as { href: string }).href),
  );
  return hrefs.map((href) => new URL(href).href.replace(/#.*$/, ''));
}

function add(found: Map<string, PageToVisit>, url: string, root: string): boolean {
  const kind = kindOf(new URL(url));
  if (found.has(kind)) return false;
  found.set(kind, { name: nameOf(url, root), url });
  return true;
}

/**
 * One kind per path shape (job ids and queue names as placeholders) and set of query parameter
 * names (an action names its page); `refresh` only adds the reload script, so it makes no kind.
 */
function kindOf(url: URL): string {
  const path =
    url.pathname
      .replace(/\/\d+(?=\/|$)/g, '/:id')
      .replace(/\/queues\/[^/]+/, '/queues/:name')
      .replace(/\/$/, '') || '/';
  const keys = [...url.searchParams.keys()].filter((key) => key !== 'refresh').sort();
  const action = url.searchParams.get('action');
  return `${path}?${keys.join('&')}${action ? `=${action}` : ''}`;
}

function nameOf(url: string, root: string): string {
  const target = new URL(url);
  const rootPath = new URL(root).pathname;
  const path = target.pathname.slice(rootPath.length).replace(/\d+/g, 'id') || 'queues';
  const query = [...target.searchParams.keys()].sort().join('-');
  const action = target.searchParams.get('action');
  return [path, query, action]
    .filter(Boolean)
    .join('-')
    .replace(/[^A-Za-z0-9_-]+/g, '-');
}
