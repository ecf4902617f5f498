import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { silentLogger, Tidemark } from '../../src/index.js';
import { TEST_DRIVERS } from '../support/databases.js';
import { seedBareFolder } from '../support/pglite-boot.js';
import { type FixtureProcess, startFixture } from './support/processes.js';
import { MiB, mountTmpfs, resizeTmpfs, unmountTmpfs, usedBytes } from './support/tmpfs.js';

/** An answer slower than this is a hang (a statement spinning inside PGlite), not a slow machine. */
const HANG_MS = 40_000;
/** Bytes of each job's payload: the table and the log grow by about this much per job. */
const PAYLOAD = 16_384;

interface Line {
  kind: string;
  value: unknown;
}

interface Refusal {
  name: string;
  code: unknown;
  stage: unknown;
  message: string;
}

/** Send a disk-filler command; resolves with its answer lines, through the first of kind `end`. */
async function send(child: FixtureProcess, command: string, end: string[]): Promise<Line[]> {
  const from = child.lines.length;
  child.child.stdin?.write(`${command}\n`);
  let index = -1;
  const last = child.line((line) => ++index >= from && end.includes(line.split(' ', 1)[0]));
  await answered(child, last, command);
  const lines = child.lines.slice(from);
  return lines.slice(0, lines.indexOf(await last) + 1).map(parse);
}

function parse(line: string): Line {
  const at = line.indexOf(' ');
  return { kind: line.slice(0, at), value: JSON.parse(line.slice(at + 1)) };
}

/** `promise`, or a failure naming `what` once HANG_MS passed without it (the child is killed). */
async function answered<T>(child: FixtureProcess, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.child.kill('SIGKILL');
      reject(new Error(`no answer to '${what}' in ${HANG_MS / 1000} s: the engine hung\n${child.stderr()}`));
    }, HANG_MS);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const ids = (lines: Line[]) => lines.filter((l) => l.kind === 'added').map((l) => l.value as string);
const refusals = (lines: Line[]) => lines.filter((l) => l.kind === 'refused').map((l) => l.value as Refusal);

function assertFull(refusal: Refusal | undefined, stage: string): void {
  assert.ok(refusal, 'a call was refused');
  assert.deepEqual(
    { name: refusal.name, code: refusal.code, stage: refusal.stage },
    { name: 'DatabaseFullError', code: 'DATABASE_FULL', stage },
    refusal.message,
  );
}

if (TEST_DRIVERS.includes('pglite')) {
  describe('embedded folder on a full disk (PGlite only; mounts tmpfs, so it runs as root on Linux)', () => {
    const cleanups: (() => void)[] = [];
    after(() => {
      for (const cleanup of cleanups.reverse()) cleanup();
    });

    /**
     * A fresh folder on a disk of its own, with its log (pg_wal) on a second disk mounted inside
     * it, so that which of the two fills first is certain: a data file that cannot grow fails
     * one statement; a log that cannot grow a new segment stops the backend (PANIC).
     */
    async function folderOnTwoDisks(): Promise<{ folder: string; data: string; log: string }> {
      const data = mkdtempSync(join(tmpdir(), 'tidemark-disk-full-'));
      cleanups.push(() => rmSync(data, { recursive: true, force: true }));
      mountTmpfs(data, 64 * MiB);
      cleanups.push(() => unmountTmpfs(data));
      const folder = join(data, 'db');
      await seedBareFolder(folder);
      const log = join(folder, 'pg_wal');
      const aside = join(data, 'pg_wal.seed');
      renameSync(log, aside);
      mkdirSync(log);
      mountTmpfs(log, 32 * MiB);
      cleanups.push(() => unmountTmpfs(log));
      cpSync(aside, log, { recursive: true });
      rmSync(aside, { recursive: true });
      return { folder, data, log };
    }

    async function start(folder: string): Promise<FixtureProcess> {
      const child = startFixture(
        'disk-filler',
        { TM_FAULTS_FOLDER: folder, TM_FAULTS_PAYLOAD: String(PAYLOAD) },
        { stdin: true },
      );
      cleanups.push(() => child.child.kill('SIGKILL'));
      await answered(
        child,
        child.line((l) => l.startsWith('ready ') || l.startsWith('refused ')),
        'open',
      );
      return child;
    }

    /** Open the folder in this process and count the acknowledged jobs it holds. */
    async function countFound(folder: string, acknowledged: string[]): Promise<number> {
      const tm = await Tidemark.open({ database: folder, logger: silentLogger });
      tm.createQueue({ name: 'full' });
      try {
        let found = 0;
        for (const id of acknowledged) if (await tm.getJob(id)) found++;
        await tm.addJob({ queue: 'full', data: { reopened: true } });
        return found;
      } finally {
        await tm.close();
      }
    }

    test('the data disk fills: each add that needs room is refused with DatabaseFullError (stage call), reads go on, the event loop turns, and adds pass again in the same engine once there is space', async (t) => {
      const { folder, data } = await folderOnTwoDisks();
      const child = await start(folder);
      resizeTmpfs(data, usedBytes(data) + MiB);

      const fill = await send(child, 'fill', ['refused']);
      const acknowledged = ids(fill);
      assert.ok(acknowledged.length > 0, 'some jobs fit before the disk was full');
      assertFull(refusals(fill)[0], 'call');

      // Each call after a 10 ms timer: an answer to all of them means timers kept firing.
      const again = await send(child, 'again 6', ['ticks']);
      assert.equal(ids(again).length, 0);
      assert.equal(refusals(again).length, 3);
      for (const refusal of refusals(again)) assertFull(refusal, 'call');
      assert.deepEqual(
        again.filter((l) => l.kind === 'read').map((l) => l.value),
        [true, true, true],
      );

      resizeTmpfs(data, 64 * MiB);
      const later = await send(child, 'add', ['added', 'refused']);
      assert.deepEqual(refusals(later), []);
      acknowledged.push(...ids(later));
      await send(child, 'close', ['closed']);
      child.child.stdin?.end();
      assert.deepEqual(await child.exited, { code: 0, signal: null }, child.stderr());

      assert.equal(await countFound(folder, acknowledged), acknowledged.length, 'acknowledged jobs lost');
      t.diagnostic(`${acknowledged.length} jobs acknowledged, all found after reopening`);
    });

    test('the log disk fills: the database stops, that call and every later one are refused with DatabaseFullError (stage stopped) without reaching PGlite, close works, opening refuses while full, and once there is space the folder opens with every acknowledged job', async (t) => {
      const { folder, log } = await folderOnTwoDisks();
      const child = await start(folder);
      // Room for the log's spare segments only: not one more 1 MB segment can be made.
      resizeTmpfs(log, usedBytes(log) + MiB / 2);

      const fill = await send(child, 'fill', ['refused']);
      const acknowledged = ids(fill);
      assert.ok(acknowledged.length > 0, 'some jobs fit before the log was full');
      assertFull(refusals(fill)[0], 'stopped');

      // Before the fix the first of these spun at 100% CPU inside PGlite and never answered.
      const again = await send(child, 'again 6', ['ticks']);
      assert.equal(refusals(again).length, 6);
      for (const refusal of refusals(again)) assertFull(refusal, 'stopped');
      await send(child, 'close', ['closed']);
      child.child.stdin?.end();
      assert.deepEqual(await child.exited, { code: 0, signal: null }, child.stderr());

      // A restart on the still full disk is refused, typed: recovery has to write to the log.
      const reopened = await start(folder);
      assert.deepEqual(await reopened.exited, { code: 1, signal: null }, reopened.stderr());
      assertFull(refusals(reopened.lines.map(parse))[0], 'open');

      resizeTmpfs(log, 32 * MiB);
      assert.equal(await countFound(folder, acknowledged), acknowledged.length, 'acknowledged jobs lost');
      t.diagnostic(`${acknowledged.length} jobs acknowledged, all found after freeing space and reopening`);
    });
  });
}
