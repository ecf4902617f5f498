import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { Parser } from 'tar';
import { DatabaseLockedError, JobStatus, silentLogger, Tidemark } from '../../src/index.js';
import { pgliteFolder } from '../../src/storage/driver/caller-pglite.js';
import { type Opener, type Reply, startOpener } from '../faults/support/folder-opener.js';
import { TEST_DRIVERS } from '../support/databases.js';
import { seedBareFolder, seedEmbeddedFolder } from '../support/pglite-boot.js';

/**
 * The names of a tar archive's members, read by node-tar's parser (PGlite names them from the
 * root, `/PG_VERSION`, which the seed's ArchiveReader refuses): a byte search of the whole dump
 * would also find these names in the database's own pages (function bodies, settings).
 */
function memberNames(tar: Buffer): string[] {
  const names: string[] = [];
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry) => {
      names.push(entry.path);
      entry.resume();
    },
  });
  parser.end(tar);
  return names;
}

function assertRefusedBy(reply: Reply, pid: number): void {
  assert.equal(reply.kind, 'refused', JSON.stringify(reply));
  const value = reply.value as { code: string; details: { pid: number } };
  assert.deepEqual([value.code, value.details.pid], ['DATABASE_LOCKED', pid]);
}

describe('the folder of a caller-supplied PGlite', () => {
  test('is read from the instance: its NodeFS, or its dataDir as PGlite reads it; memory has none', () => {
    const cases: [Record<string, unknown>, string | null][] = [
      [{ dataDir: '/srv/jobs' }, '/srv/jobs'],
      [{ dataDir: './jobs' }, './jobs'],
      [{ dataDir: 'file:///srv/jobs' }, '/srv/jobs'],
      [{ dataDir: 'file://./jobs' }, './jobs'],
      [{ dataDir: undefined, fs: { rootDir: '/srv/from-fs' } }, '/srv/from-fs'],
      [{ dataDir: '/srv/jobs', fs: { rootDir: '/srv/jobs-resolved' } }, '/srv/jobs-resolved'],
      [{ dataDir: undefined }, null],
      [{ dataDir: '' }, null],
      [{ dataDir: 'memory://' }, null],
      [{ dataDir: 'memory://named' }, null],
      [{ dataDir: 'idb://jobs' }, null],
      [{ dataDir: 'opfs-ahp://jobs' }, null],
      [{ dataDir: undefined, fs: {} }, null],
    ];
    for (const [instance, folder] of cases) {
      assert.equal(pgliteFolder(instance as never), folder, JSON.stringify(instance));
    }
  });
});

// Embedded folders exist only on PGlite; one opener process for the file.
if (TEST_DRIVERS.includes('pglite')) {
  describe('a caller-supplied PGlite on a folder is locked as a path is [pglite]', () => {
    const root = mkdtempSync(join(tmpdir(), 'tidemark-caller-pglite-'));
    const held = join(root, 'held');
    const theirs = join(root, 'theirs');
    let opener: Opener;
    before(async () => {
      // `theirs` holds no schema: a refused open must leave it so.
      await Promise.all([seedEmbeddedFolder(held), seedBareFolder(theirs)]);
      opener = startOpener(held);
    });
    after(async () => {
      opener.child.kill('SIGKILL');
      await opener.exited;
      rmSync(root, { recursive: true, force: true });
    });

    test('while the instance is open, another process is refused (Tidemark.open or the lock alone), even after Tidemark closes, and the instance still dumps; its close() lets the folder go', async () => {
      const db = new PGlite(held);
      const tm = await Tidemark.open({ database: db, logger: silentLogger });
      // A second engine on the same instance is the same owner, not a second one.
      const second = await Tidemark.open({ database: db, logger: silentLogger });
      let id: string;
      try {
        tm.createQueue({ name: 'q' });
        ({ id } = await tm.addJob({ queue: 'q' }));
        assertRefusedBy(await opener.send('open', 'open'), process.pid);
        assertRefusedBy(await opener.send('lock', 'lock'), process.pid);
        // Another instance of this process on the folder, by its path, is refused too.
        await assert.rejects(Tidemark.open({ database: held, logger: silentLogger }), (e: unknown) => {
          assert.ok(e instanceof DatabaseLockedError, String(e));
          assert.equal(e.details.sameProcess, true);
          return true;
        });
        assert.equal((await second.getJob(id))?.status, JobStatus.PENDING);
        // PGlite's file layer cannot read the lock's socket file: a dump leaves the lock's files out.
        const dump = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
        const names = memberNames(dump).map((name) => basename(name));
        assert.ok(names.includes('PG_VERSION'), 'the dump holds the database');
        assert.deepEqual(
          names.filter((name) => name.startsWith('tidemark.')),
          [],
          "the dump holds none of the lock's files",
        );
      } finally {
        await tm.close();
        await second.close();
      }
      // The instance is still open, and still the folder's owner.
      assertRefusedBy(await opener.send('lock', 'after-tidemark'), process.pid);
      await db.close();
      assert.equal((await opener.send('lock', 'after-instance')).kind, 'owner', opener.stderr());
      assert.equal((await opener.send('close', 'let-go')).kind, 'closed');
      // The job the owner wrote is there.
      const again = await Tidemark.open({ database: held, logger: silentLogger });
      try {
        assert.equal((await again.getJob(id))?.id, id);
      } finally {
        await again.close();
      }
    });

    test('on a folder another process holds, Tidemark.open refuses with DatabaseLockedError and writes nothing; the embedded default then gives { tx } a transaction of its own', async () => {
      assert.equal((await opener.send('lock', 'theirs', theirs)).kind, 'owner', opener.stderr());
      const db = new PGlite(theirs);
      try {
        await assert.rejects(Tidemark.open({ database: db, logger: silentLogger }), (e: unknown) => {
          assert.ok(e instanceof DatabaseLockedError, String(e));
          assert.deepEqual([e.details.pid, e.details.sameProcess], [opener.child.pid, false]);
          return true;
        });
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from pg_namespace where nspname = 'tidemark'`,
        );
        assert.equal(rows[0].n, 0, 'no schema was created');
      } finally {
        await db.close();
      }
      assert.equal((await opener.send('close', 'theirs-close')).kind, 'closed');
      // No PGlite of your own for { tx }: the embedded default by path has tm.transaction.
      const tm = await Tidemark.open({ database: theirs, logger: silentLogger });
      try {
        tm.createQueue({ name: 'q' });
        const id = await tm.transaction(async (tx) => (await tm.addJob({ queue: 'q' }, { tx })).id);
        assert.equal((await tm.getJob(id))?.status, JobStatus.PENDING);
      } finally {
        await tm.close();
      }
      assert.deepEqual(
        readdirSync(theirs).filter((name) => name.startsWith('tidemark.')),
        [],
        'the lock left nothing behind',
      );
    });
  });
}
