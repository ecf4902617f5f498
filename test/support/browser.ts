import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { promisify } from 'node:util';
import { type Browser, chromium, type LaunchOptions, type Page } from 'playwright-core';

/** Looked for on PATH when CHROMIUM_PATH names no browser. */
export const SYSTEM_CHROMIUMS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
export const SCREENSHOTS = join('test-results', 'dashboard');

const COMMON_ARGS = [
  // Root cannot run Chromium's sandbox, and containers often lack the user namespaces that a
  // sandbox needs otherwise; these pages are the suite's own.
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Headless Chromium: CHROMIUM_PATH, else a Chromium or Chrome installed on this machine, else
 * the one inside the @sparticuz/chromium package. No Chromium fails the test: browser tests
 * never skip.
 */
export async function launchChromium(): Promise<Browser> {
  const options: LaunchOptions = { headless: true, ...(await chromiumLaunchOptions()) };
  return launchTried(() => chromium.launch(options));
}

/** `launch`, tried again when the browser died as it started (LAUNCH_ATTEMPTS in all). */
export async function launchTried<T>(launch: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch();
    } catch (error) {
      if (attempt === LAUNCH_ATTEMPTS || !diedAtLaunch(error)) throw error;
    }
  }
}

/**
 * How many times a launch is tried. The browser build now and then crashes as it starts on a
 * loaded machine (SIGSEGV before its first page; playwright says the browser "has been closed"):
 * that launch is tried again. A browser that started is never replaced, so a crash while a test
 * uses it fails that test.
 */
export const LAUNCH_ATTEMPTS = 3;

function diedAtLaunch(error: unknown): boolean {
  return error instanceof Error && /browser has been closed/.test(error.message);
}

export async function chromiumLaunchOptions(): Promise<LaunchOptions> {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    assert.ok(existsSync(named), `CHROMIUM_PATH names ${named}, which does not exist`);
    return { executablePath: named, args: ['--disable-gpu', ...COMMON_ARGS] };
  }
  const installed = systemChromium();
  if (installed) return { executablePath: installed, args: ['--disable-gpu', ...COMMON_ARGS] };
  return packagedChromium();
}

function systemChromium(): string | undefined {
  const dirs = ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  for (const name of SYSTEM_CHROMIUMS) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (existsSync(path) && statSync(path).isFile()) return path;
    }
  }
  return undefined;
}

/**
 * The @sparticuz/chromium build (a headless shell made for serverless hosts), unpacked once per
 * version and user into the temporary folder. Its own flags assume a single-process sandbox-less
 * Lambda: the browser here runs as usual instead, with web security on, since the dashboard's
 * CSP and cross-origin rules are under test.
 */
async function packagedChromium(): Promise<LaunchOptions> {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    assert.fail(
      `no Chromium: none at CHROMIUM_PATH, none of ${SYSTEM_CHROMIUMS.join(', ')} on PATH, and ` +
        '@sparticuz/chromium is not installed (npm ci installs it)',
    );
  }
  const { version } = packageJson(entry);
  const dir = join(tmpdir(), `tidemark-chromium-${version}-${process.getuid?.() ?? 0}`);
  if (!existsSync(join(dir, '.complete'))) await unpack(entry, dir);

  const { default: packaged } = (await import('@sparticuz/chromium')) as {
    default: { args: string[] };
  };
  const dropped = ['--single-process', '--disable-web-security'];
  const args = packaged.args.filter((arg) => !dropped.includes(arg) && !arg.startsWith('--headless'));
  const executablePath = join(dir, 'chromium');
  const env: Record<string, string | undefined> = { ...process.env };
  env.FONTCONFIG_PATH ??= join(dir, 'fonts');
  // The build links the system's NSS; where it is missing, the copy made for Amazon Linux
  // 2023 stands in (a newer glibc than that runs it).
  if (missingLibraries(executablePath)) {
    env.LD_LIBRARY_PATH = [join(dir, 'al2023', 'lib'), env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
  }
  return { executablePath, args: [...args, ...COMMON_ARGS], env };
}

/**
 * Unpack under a lock: test files launch browsers in parallel, and the package's own unpacking
 * marks its output as ready before it is complete.
 */
async function unpack(entry: string, dir: string): Promise<void> {
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than any unpacking is one whose holder died.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 120_000) {
        rmSync(lock, { recursive: true, force: true });
      }
      assert.ok(Date.now() < deadline, `timed out waiting for ${lock}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (existsSync(join(dir, '.complete'))) return;
    const staging = mkdtempSync(`${dir}.staging-`);
    try {
      // The package unpacks into the temporary folder of its process: a child's, pointed here.
      // The Amazon Linux 2023 runtime name makes it unpack that system's libraries as well.
      await promisify(execFile)(
        process.execPath,
        [
          '-e',
          'require(process.argv[1]).executablePath().catch((e) => { console.error(e); process.exit(1); })',
          entry,
        ],
        { env: { ...process.env, TMPDIR: staging, AWS_LAMBDA_JS_RUNTIME: 'nodejs20.x' } },
      );
      mkdirSync(join(staging, 'fonts'), { recursive: true });
      // Its fonts.conf names /tmp/fonts; this one names where the fonts are, and the system's.
      writeFileSync(
        join(staging, 'fonts', 'fonts.conf'),
        [
          '<?xml version="1.0"?>',
          '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
          '<fontconfig>',
          `  <dir>${join(dir, 'fonts', 'fonts')}</dir>`,
          '  <dir>/usr/share/fonts</dir>',
          '  <dir>/usr/local/share/fonts</dir>',
          `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>`,
          '</fontconfig>',
          '',
        ].join('\n'),
      );
      writeFileSync(join(staging, '.complete'), '');
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The package.json of the package that holds `file`. */
function packageJson(file: string): { name: string; version: string } {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (!existsSync(path)) continue;
    const json = JSON.parse(readFileSync(path, 'utf8'));
    if (json.name && json.version) return json;
  }
  throw new Error(`no package.json above ${file}`);
}

function missingLibraries(executable: string): boolean {
  try {
    return execFileSync('ldd', [executable], { encoding: 'utf8' }).includes('not found');
  } catch {
    return true;
  }
}

export interface ImageStats {
  width: number;
  height: number;
  /** Distinct colours in a sample of the pixels. */
  colours: number;
  /** Standard deviation of luminance (0 for a blank image). */
  luminanceStdDev: number;
}

/** The blank page each browser decodes screenshots in: one for all, not one per image. */
const statsPages = new WeakMap<Browser, Promise<Page>>();

/**
 * Decode a PNG in the browser (a blank page of its own, outside the dashboard's CSP) and
 * measure it: a blank or single-colour screenshot has one colour and no variance.
 */
export async function imageStats(browser: Browser, png: Buffer): Promise<ImageStats> {
  let opening = statsPages.get(browser);
  if (opening === undefined) {
    opening = browser.newPage();
    statsPages.set(browser, opening);
  }
  const page = await opening;
  return page.evaluate(async (base64) => {
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

/**
 * One headless Chromium for the tests of the file (or the `describe`) that calls it: launched
 * before them, closed after them. Returns the browser, read inside a test.
 */
export function sharedChromium(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined)
      throw new Error('Chromium is launched before the tests, not while they are declared');
    return browser;
  };
}
