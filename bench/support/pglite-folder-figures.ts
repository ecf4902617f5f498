/**
 * Tidemark on PGlite in a folder, as `Tidemark.open()` runs with no options: how long the first
 * open of a new folder takes (and an open in memory beside it), and a drain on a folder (the
 * `pglite` figure drains in memory).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tidemark } from '../../dist/index.js';
import { CONCURRENCY, type Figures, JOBS } from './figures.js';
import { rawPgliteDrain } from './raw-pglite-loop.js';
import { median } from './stats.js';
import { openTidemark, tidemarkBulkAdd, tidemarkDrain } from './tidemark-subject.js';

/** New folders opened per run; the run reports their median. */
export const FIRST_OPENS = 5;

const DIST = new URL('../../dist/index.js', import.meta.url).href;

/**
 * `Tidemark.open` on a new folder (or `memory://`) and back, timed inside a process of its own: a process that
 * has opened PGlite once compiles its WebAssembly faster the next time, which a user's first
 * open does not get. The import of Tidemark is not timed; PGlite's (inside the open) is.
 */
const OPEN_ONCE = `
const { Tidemark, silentLogger } = await import(${JSON.stringify(DIST)});
const started = performance.now();
const tm = await Tidemark.open({ database: process.argv[1], logger: silentLogger });
const ms = performance.now() - started;
await tm.close();
process.stdout.write('@@open ' + ms + '\\n');
`;

/**
 * The first open of each of `opens` new folders in a temp folder, and as many opens of a new
 * database in memory (`memory://`, what the test kit opens), alternating: median ms of each.
 */
export async function firstOpen(opens = FIRST_OPENS): Promise<Figures> {
  const root = mkdtempSync(join(tmpdir(), 'tidemark-bench-open-'));
  try {
    const folders: number[] = [];
    const memory: number[] = [];
    for (let i = 0; i < opens; i++) {
      folders.push(await openInChild(join(root, `db-${i}`)));
      memory.push(await openInChild('memory://'));
    }
    return { firstOpenMs: median(folders), memoryOpenMs: median(memory) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `count` no-op jobs bulk-added to a new folder, then drained by one worker; and the same on
 * another new folder drained by the bare SQL loop (raw-pglite-loop.ts), the most PGlite can
 * drain: jobs/s of each, and the worker's fraction of the loop.
 */
export async function folderDrain(count = JOBS, concurrency = CONCURRENCY): Promise<Figures> {
  const jobsPerSecond = await onNewFolder(count, (tm) => tidemarkDrain(tm, 'noop', count, concurrency));
  const rawLoopJobsPerSecond = await onNewFolder(count, (tm) => rawPgliteDrain(tm, 'noop', count));
  return { jobsPerSecond, rawLoopJobsPerSecond, ofRawLoop: jobsPerSecond / rawLoopJobsPerSecond };
}

/** Open a new folder, add `count` no-op jobs, run `drain` on it, and remove the folder. */
async function onNewFolder(count: number, drain: (tm: Tidemark) => Promise<number>): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'tidemark-bench-folder-'));
  try {
    const { tm, dispose } = await openTidemark('pglite', join(root, 'db'));
    try {
      tm.createQueue({ name: 'noop' });
      await tm.listQueues();
      await tidemarkBulkAdd(tm, 'noop', count);
      return await drain(tm);
    } finally {
      await dispose();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function openInChild(database: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', OPEN_ONCE, database], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('@@open '));
      if (code === 0 && line) resolve(Number(line.slice('@@open '.length)));
      else reject(new Error(`first open of ${database} failed (exit ${code}): ${err.trim()}`));
    });
  });
}
