import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join('test-results', 'dashboard');

/** Debian's Chromium, headless. Missing Chromium fails the test: browser tests never skip. */
export async function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install it (apt-get install -y chromium); .ci/run does`,
  );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ImageStats {
  width: number;
  height: number;
  /** Distinct colours in a sample of the pixels. */
  colours: number;
  /** Standard deviation of luminance (0 for a blank image). */
  luminanceStdDev: number;
}

/**
 * Decode a PNG in the browser (a fresh blank page, outside the dashboard's CSP) and measure
 * it: a blank or single-colour screenshot has one colour and no variance.
 */
export async function imageStats(browser: Browser, png: Buffer): Promise<ImageStats> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (base64) => {
      // Runs in the browser; the project compiles without DOM types, so name what is used.
      const dom = globalThis as unknown as BrowserGlobals;
      const image = new dom.Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = dom.document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2d context');
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      const colours = new Set<number>();
      let sum = 0;
      let sumSq = 0;
      let n = 0;
      for (let i = 0; i < data.length; i += 4 * 7) {
        const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
        colours.add((r << 16) | (g << 8) | b);
        const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        sum += y;
        sumSq += y * y;
        n++;
      }
      const mean = sum / n;
      return {
        width: canvas.width,
        height: canvas.height,
        colours: colours.size,
        luminanceStdDev: Math.sqrt(Math.max(sumSq / n - mean * mean, 0)),
      };
    }, png.toString('base64'));
  } finally {
    await page.close();
  }
}

/** Save a full-page screenshot under test-results/ and check it shows something. */
export async function screenshot(browser: Browser, page: Page, name: string): Promise<ImageStats> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const png = await page.screenshot({ fullPage: true, type: 'png' });
  writeFileSync(join(SCREENSHOTS, `${name}.png`), png);
  const stats = await imageStats(browser, png);
  assert.ok(stats.width >= 800 && stats.height >= 300, `${name}: ${stats.width}x${stats.height}`);
  assert.ok(stats.colours >= 20, `${name} is not blank (${stats.colours} colours)`);
  assert.ok(
    stats.luminanceStdDev >= 8,
    `${name} has contrast (luminance sd ${stats.luminanceStdDev.toFixed(1)})`,
  );
  return stats;
}

/** The few browser globals the image check uses. */
interface BrowserGlobals {
  Image: new () => { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> };
  document: {
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        drawImage(image: unknown, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      } | null;
    };
  };
}
