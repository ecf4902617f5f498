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

/** Text smaller than this many CSS pixels, as drawn, is a failure at any width. */
export const MIN_TEXT_PX = 10;

/**
 * A whitespace-separated word longer than this is an opaque value (a URL, a hash, JSON): it
 * has to break somewhere on a phone, so only shorter words are held to staying whole.
 */
export const MAX_TOKEN = 40;

/** Text as drawn: what is too small, and which short words were broken across two lines. */
export interface TextCheck {
  /** Visible text drawn below MIN_TEXT_PX, as `size px "text"`. */
  small: string[];
  /** Words of at most MAX_TOKEN characters split over lines at no hyphen, slash or space. */
  broken: string[];
}

/**
 * Runs in the page. Every visible text node (its element passes checkVisibility, which a
 * closed <details> and display:none fail, and a Range over it has boxes, which SVG <title> has not): its size is the computed font size, times the
 * scale of the SVG user space for SVG text, since a viewBox scales text with the drawing.
 * Each word (split at whitespace; longer than MAX_TOKEN left out) is split again after
 * hyphens and slashes, where a line may break; a piece whose Range's boxes lie on two lines
 * is broken mid-token when, measured again with word breaking turned off, it lies on one.
 */
const MEASURE_TEXT = `((minPx, maxToken) => {
  const small = [];
  const broken = [];
  const candidates = [];
  const range = document.createRange();
  const lines = (node, start, end) => {
    range.setStart(node, start);
    range.setEnd(node, end);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top / 4))).size;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent || '';
    const el = node.parentElement;
    if (!el || !text.trim() || el.closest('script, style, title, textarea, option')) continue;
    if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) continue;
    range.selectNodeContents(node);
    if (![...range.getClientRects()].some((r) => r.width > 0 && r.height > 0)) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement && el.getScreenCTM()) {
      const m = el.getScreenCTM();
      size *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    }
    if (size < minPx) small.push(size.toFixed(1) + ' px "' + text.trim().slice(0, 40) + '"');
    for (const word of text.matchAll(/\\S+/g)) {
      if (word[0].length > maxToken) continue;
      for (const piece of word[0].matchAll(/[^\\-\\/\u2010-\u2014]+[\\-\\/\u2010-\u2014]?/g)) {
        const start = word.index + piece.index;
        if (lines(node, start, start + piece[0].length) > 1) candidates.push([node, el, start, piece[0], text]);
      }
    }
  }
  // A piece on two lines is broken mid-token only if the line would not break there anyway:
  // measured again with word breaking off (overflow-wrap and word-break normal), it lies on
  // one line. Where the text itself allows a break (punctuation, CJK), it still spans two.
  for (const [node, el, start, piece, text] of candidates) {
    const wrap = el.style.overflowWrap;
    const word = el.style.wordBreak;
    el.style.overflowWrap = 'normal';
    el.style.wordBreak = 'normal';
    const natural = lines(node, start, start + piece.length);
    el.style.overflowWrap = wrap;
    el.style.wordBreak = word;
    if (natural === 1) broken.push('"' + piece + '" in "' + text.trim().slice(0, 60) + '"');
  }
  return { small: small.slice(0, 12), broken: broken.slice(0, 12) };
})`;

export async function measureText(page: Page): Promise<TextCheck> {
  return page.evaluate(`${MEASURE_TEXT}(${MIN_TEXT_PX}, ${MAX_TOKEN})`) as Promise<TextCheck>;
}

/** Passes when no visible text is drawn below MIN_TEXT_PX and no short word breaks mid-word. */
export function assertReadable(check: TextCheck, label: string, width: number): void {
  assert.ok(
    check.small.length === 0,
    `${label} draws text below ${MIN_TEXT_PX} px at ${width} px: ${check.small.join('; ')}`,
  );
  assert.ok(
    check.broken.length === 0,
    `${label} breaks a word mid-token at ${width} px: ${check.broken.join('; ')}`,
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
