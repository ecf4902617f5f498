import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { DatabaseLockedError, silentLogger, Tidemark } from '../../src/index.js';
import { setFolderLockStrategy } from '../../src/storage/driver/folder-lock.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { TEST_DRIVERS } from '../support/databases.js';
import { seedEmbeddedFolder } from '../support/pglite-boot.js';
import { type Opener, type Reply, startOpener } from './support/folder-opener.js';

/** Processes racing for one folder in each trial. */
const RACERS = 4;

/** A pid that surely belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

/** An owner file left behind by a process that no longer holds the folder, naming `pid`. */
function leaveStaleOwner(folder: string, pid: number): void {
  const detail = { pid, host: hostname(), started: new Date(0).toISOString(), processStart: '1' };
  writeFileSync(join(folder, 'tidemark.lock'), `${pid}\n${JSON.stringify(detail)}\n`);
}

/**
 * The socket file a process killed while holding the folder leaves behind: a socket nobody
 * listens on any more (bound aside, linked in, and its listener closed).
 */
async function leaveStaleSocket(folder: string): Promise<void> {
  const aside = join(folder, 'stale.sock');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(aside, resolve));
  linkSync(aside, join(folder, 'tidemark.sock'));
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Send `command` (on `folder`, for `lock`) to every racer in the same tick, and wait for every reply. */
async function race(
  racers: Opener[],
  command: 'open' | 'lock',
  tag: string,
  folder?: string,
): Promise<Reply[]> {
  return Promise.all(racers.map((racer) => racer.send(command, tag, folder)));
}

/** Lines like "owners per trial: 1×20" or "1×14, 2×5, 3×1". */
function tally(owners: number[]): string {
  const counts = new Map<number, number>();
  for (const n of owners) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, times]) => `${n}×${times}`)
    .join(', ');
}

function assertOneOwnerEach(trials: Reply[][]): void {
  const owners = trials.map((replies) => replies.filter((r) => r.kind === 'owner').length);
  assert.deepEqual(
    owners.filter((n) => n !== 1),
    [],
    `owners per trial: ${tally(owners)}; replies of a bad trial: ${JSON.stringify(
      trials.find((replies) => replies.filter((r) => r.kind === 'owner').length !== 1),
    )}`,
  );
  for (const replies of trials) {
    for (const reply of replies.filter((r) => r.kind !== 'owner')) {
      assert.equal(reply.kind, 'refused', JSON.stringify(reply));
      assert.equal((reply.value as { code: string }).code, 'DATABASE_LOCKED', JSON.stringify(reply));
    }
  }
}

const LOCKS = [
  { name: 'the platform lock', lock: undefined },
  { name: 'the file lock', lock: 'file' },
] as const;

if (TEST_DRIVERS.includes('pglite')) {
  describe('embedded folder lock: processes racing for one folder (PGlite only)', () => {
    const root = mkdtempSync(join(tmpdir(), 'tidemark-folder-lock-'));
    const racers: Opener[] = [];
    after(async () => {
      for (const racer of racers) racer.child.kill('SIGKILL');
      await Promise.all(racers.map((racer) => racer.exited));
      rmSync(root, { recursive: true, force: true });
    });
    /**
     * The racers of each lock, started once for both of its races: the lock race names its bare
     * folder in each command, the open race opens the racers' own folder (`db-<lock>`). A racer
     * holds nothing between commands, as between the trials of one race.
     */
    const groups = new Map<string, Opener[]>();
    const racersFor = (lock?: 'file') => {
      const key = lock ?? 'platform';
      let group = groups.get(key);
      if (!group) {
        const folder = join(root, `db-${key}`);
        group = Array.from({ length: RACERS }, () => startOpener(folder, { lock }));
        racers.push(...group);
        groups.set(key, group);
      }
      return group;
    };
    const dead = deadPid();

    for (const { name, lock } of LOCKS) {
      test(`${name}: ${RACERS} processes take one stale folder at once, 150 times: exactly one owner each time`, async (t) => {
        const folder = join(root, `bare-${lock ?? 'platform'}`);
        mkdirSync(folder);
        const group = racersFor(lock);
        const trials: Reply[][] = [];
        for (let trial = 1; trial <= 150; trial++) {
          // Odd trials: a dead owner's file. Even ones: a file naming a live process that is not
          // the owner (the test runner, with another start time), as a reused pid would.
          leaveStaleOwner(folder, trial % 2 === 1 ? dead : process.ppid);
          // Every third trial, the platform lock's socket file of a killed owner too.
          if (lock === undefined && trial % 3 === 0) await leaveStaleSocket(folder);
          const replies = await race(group, 'lock', `t${trial}`, folder);
          trials.push(replies);
          await Promise.all(
            group
              .filter((_, i) => replies[i].kind === 'owner')
              .map((racer) => racer.send('close', `c${trial}`)),
          );
        }
        assertOneOwnerEach(trials);
        t.diagnostic(
          `owners per trial: ${tally(trials.map((r) => r.filter((x) => x.kind === 'owner').length))}`,
        );
      });
    }

    for (const { name, lock, trials: count } of [
      { ...LOCKS[0], trials: 8 },
      { ...LOCKS[1], trials: 4 },
    ]) {
      test(`${name}: ${RACERS} processes open one stale folder with Tidemark.open, ${count} times: one owner, and every job it acknowledged is there afterwards`, async (t) => {
        const folder = join(root, `db-${lock ?? 'platform'}`);
        await seedEmbeddedFolder(folder);
        const group = racersFor(lock);
        const trials: Reply[][] = [];
        const acknowledged: { id: string; tag: string; pid: number }[] = [];
        for (let trial = 1; trial <= count; trial++) {
          leaveStaleOwner(folder, dead);
          const replies = await race(group, 'open', `t${trial}`);
          trials.push(replies);
          const owners = group.filter((_, i) => replies[i].kind === 'owner');
          // Every owner writes, as two owners of one folder would, and then lets it go.
          const tag = `a${trial}`;
          const added = await Promise.all(owners.map((racer) => racer.add(tag, 5)));
          for (const [i, ids] of added.entries())
            for (const id of ids) acknowledged.push({ id, tag, pid: owners[i].child.pid as number });
          await Promise.all(owners.map((racer) => racer.send('close', `c${trial}`)));
        }
        await Promise.all(group.map((racer) => racer.exit()));
        const tm = await Tidemark.open({ database: folder, logger: silentLogger });
        let lost = 0;
        let rows = 0;
        try {
          // Two owners would hand out the same ids: each acknowledged job must be its own row,
          // holding what its owner wrote.
          for (const { id, tag, pid } of acknowledged) {
            const data = (await tm.getJob(id))?.data as { tag?: string; pid?: number } | undefined;
            if (data?.tag !== tag || data?.pid !== pid) lost++;
          }
          const result = await runnerOf(engineOf(tm).storage).driver.query<{ n: number }>(
            `select count(*)::int as n from "${tm.schema}".jobs where queue = 'owned'`,
          );
          rows = result.rows[0].n;
        } finally {
          await tm.close();
        }
        const owners = tally(trials.map((replies) => replies.filter((r) => r.kind === 'owner').length));
        assert.deepEqual(
          { owners, lost, rows },
          { owners: `1×${count}`, lost: 0, rows: acknowledged.length },
          `${acknowledged.length} jobs acknowledged`,
        );
        assertOneOwnerEach(trials);
        t.diagnostic(`${acknowledged.length} jobs acknowledged and found over ${count} trials`);
      });
    }

    for (const { name, lock } of LOCKS) {
      test(`${name}: an owner killed with SIGKILL lets the next process open the folder at once, with its jobs`, async () => {
        const folder = join(root, `killed-${lock ?? 'platform'}`);
        await seedEmbeddedFolder(folder);
        const owner = startOpener(folder, { lock });
        racers.push(owner);
        assert.equal((await owner.send('open', 'o')).kind, 'owner', owner.stderr());
        const ids = await owner.add('a', 3);
        owner.child.kill('SIGKILL');
        assert.equal((await owner.exited).signal, 'SIGKILL');
        setFolderLockStrategy(lock ?? null);
        try {
          const tm = await Tidemark.open({ database: folder, logger: silentLogger });
          try {
            for (const id of ids) assert.equal((await tm.getJob(id))?.id, id);
          } finally {
            await tm.close();
          }
        } finally {
          setFolderLockStrategy(null);
        }
      });
    }

    test('a second open of an open folder in one process, under another path, is refused as this process, and the folder stays locked', async () => {
      const real = join(root, 'aliased', 'db');
      mkdirSync(join(root, 'aliased'));
      await seedEmbeddedFolder(real);
      symlinkSync(real, join(root, 'aliased', 'link'));
      symlinkSync(join(root, 'aliased'), join(root, 'aliased-parent'));
      const tm = await Tidemark.open({ database: real, logger: silentLogger });
      tm.createQueue({ name: 'owned' });
      const { id } = await tm.addJob({ queue: 'owned' });
      const aliases = [
        join(root, 'aliased', 'link'),
        join(root, 'aliased-parent', 'db'),
        `${join(root, 'aliased', '.', 'db')}/`,
      ];
      try {
        for (const alias of aliases) {
          await assert.rejects(Tidemark.open({ database: alias, logger: silentLogger }), (e: unknown) => {
            assert.ok(e instanceof DatabaseLockedError, `${alias}: ${String(e)}`);
            assert.equal(e.code, 'DATABASE_LOCKED');
            assert.equal(e.details.pid, process.pid);
            assert.equal(e.details.sameProcess, true);
            assert.match(e.message, /already open in this process/);
            return true;
          });
        }
        // Another process is still kept out, under either path.
        for (const alias of [aliases[0], real]) {
          const other = startOpener(alias);
          racers.push(other);
          const reply = await other.send('open', 'x');
          assert.equal(reply.kind, 'refused', JSON.stringify(reply));
          assert.deepEqual(
            [
              (reply.value as { code: string }).code,
              (reply.value as { details: { pid: number } }).details.pid,
            ],
            ['DATABASE_LOCKED', process.pid],
          );
          await other.exit();
        }
        assert.equal((await tm.getJob(id))?.id, id);
      } finally {
        await tm.close();
      }
      // Closed, the folder opens again in this process, under the other path, with its job.
      const again = await Tidemark.open({ database: aliases[0], logger: silentLogger });
      try {
        assert.equal((await again.getJob(id))?.id, id);
      } finally {
        await again.close();
      }
    });
  });
}
