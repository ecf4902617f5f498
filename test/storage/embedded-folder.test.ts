import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DatabaseFolderError, DatabaseLockedError, Tidemark } from '../../src/index.js';
import { lockFolder, setFolderLockStrategy } from '../../src/storage/driver/folder-lock.js';
import { startOpener } from '../faults/support/folder-opener.js';
import { TEST_DRIVERS } from '../support/databases.js';
import { seedEmbeddedFolder } from '../support/pglite-boot.js';

/** Runs a command as root without the capabilities that let root ignore file permissions. */
const WITHOUT_PERMISSION_BYPASS = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'];

/** A pid that surely belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

// Embedded folders exist only on PGlite; registered when the run covers it.
if (TEST_DRIVERS.includes('pglite')) {
  describe('embedded folder ownership [pglite]', () => {
    const root = mkdtempSync(join(tmpdir(), 'tidemark-folder-'));
    after(() => rmSync(root, { recursive: true, force: true }));

    test('a lock left by a dead process is taken over; a second opener is refused', async () => {
      const folder = join(root, 'db');
      await seedEmbeddedFolder(folder);
      writeFileSync(join(folder, 'tidemark.lock'), String(deadPid()));
      const tm = await Tidemark.open({ database: folder });
      try {
        assert.equal(ownerPid(folder), process.pid);
        tm.createQueue({ name: 'q' });
        const { id } = await tm.addJob({ queue: 'q' });
        assert.equal(typeof id, 'string');
        const job = await tm.getJob(id);
        assert.ok(job?.createdAt instanceof Date);
        await assert.rejects(Tidemark.open({ database: folder }), (e: unknown) => {
          assert.ok(e instanceof DatabaseLockedError);
          assert.equal(e.code, 'DATABASE_LOCKED');
          assert.match(e.message, /already open in this process/);
          return true;
        });
        // the refused opener did not disturb the owner
        assert.equal((await tm.getJob(id))?.id, id);
      } finally {
        await tm.close();
      }
      // closing released the folder: it opens again, with its data
      const again = await Tidemark.open({ database: folder });
      try {
        assert.equal((await again.listQueues()).length, 1);
      } finally {
        await again.close();
      }
    });

    test('an owner file naming a live process that does not hold the folder (pid 1, a reused pid) does not block it', async () => {
      // Each names a running process that holds nothing: pid 1, the test runner, and this very
      // process (a container restarted under the same pid). Bare pids as earlier versions wrote.
      for (const [i, pid] of [1, process.ppid, process.pid].entries()) {
        const folder = join(root, `live-${i}`);
        mkdirSync(folder);
        writeFileSync(join(folder, 'tidemark.lock'), String(pid));
        const { release } = await lockFolder(folder);
        try {
          assert.equal(ownerPid(folder), process.pid);
        } finally {
          await release();
        }
        // Released, the folder holds nothing of the lock's: no owner file, no socket file.
        assert.deepEqual(readdirSync(folder), []);
      }
    });

    test('the file lock judges an owner by its pid and start time: a live pid that started later is stale', async () => {
      setFolderLockStrategy('file');
      try {
        const folder = join(root, 'file-lock');
        mkdirSync(folder);
        const stale = { pid: process.ppid, host: hostname(), started: '', processStart: '1' };
        writeFileSync(join(folder, 'tidemark.lock'), `${process.ppid}\n${JSON.stringify(stale)}\n`);
        const { release } = await lockFolder(folder);
        try {
          assert.equal(ownerPid(folder), process.pid);
        } finally {
          await release();
        }
        // Released, the folder holds nothing of the lock's.
        assert.deepEqual(readdirSync(folder), []);
      } finally {
        setFolderLockStrategy(null);
      }
    });

    test('a path through a file is refused with DatabaseFolderError naming the path and the system code', async () => {
      const file = join(root, 'a-file');
      writeFileSync(file, 'mine');
      for (const [path, osCode] of [
        [join(file, 'db'), 'ENOTDIR'],
        [file, 'EEXIST'],
      ]) {
        await assert.rejects(Tidemark.open({ database: path }), (e: unknown) => {
          assertFolderError(e, path, osCode);
          return true;
        });
      }
      assert.equal(readFileSync(file, 'utf8'), 'mine');
    });

    test('a read-only folder, or a new one under it, is refused with DatabaseFolderError (EACCES) and nothing is written', async () => {
      const readOnly = join(root, 'read-only');
      mkdirSync(readOnly);
      chmodSync(readOnly, 0o555);
      const cases = [
        [readOnly, 'EACCES'],
        [join(readOnly, 'new'), 'EACCES'],
      ];
      try {
        if (writesDespitePermissions(readOnly)) {
          // Root writes through any mode, by the capabilities CAP_DAC_OVERRIDE and
          // CAP_DAC_READ_SEARCH: the opener runs as root without them, so the kernel's permission
          // check applies to it as to any user. Another user would do too, but could not read
          // this clone when it lives in a private folder (a mktemp -d).
          for (const [path, osCode] of cases) {
            const opener = startOpener(path, { prefix: WITHOUT_PERMISSION_BYPASS });
            const reply = await opener.send('open', 'ro');
            await opener.exit();
            assert.equal(reply.kind, 'refused', `${JSON.stringify(reply)} ${opener.stderr()}`);
            const value = reply.value as { code: string; message: string; details: Record<string, unknown> };
            assert.equal(value.code, 'DATABASE_FOLDER_UNUSABLE');
            assert.deepEqual(value.details, { path, osCode });
            assert.ok(value.message.includes(path) && value.message.includes(osCode), value.message);
          }
        } else {
          for (const [path, osCode] of cases) {
            await assert.rejects(Tidemark.open({ database: path }), (e: unknown) => {
              assertFolderError(e, path, osCode);
              return true;
            });
          }
        }
        assert.deepEqual(readdirSync(readOnly), []);
      } finally {
        chmodSync(readOnly, 0o755);
      }
    });
  });
}

function assertFolderError(e: unknown, path: string, osCode: string): void {
  assert.ok(e instanceof DatabaseFolderError, `${path}: ${String(e)}`);
  assert.equal(e.code, 'DATABASE_FOLDER_UNUSABLE');
  assert.deepEqual(e.details, { path, osCode });
  assert.ok(e.message.includes(path) && e.message.includes(osCode), e.message);
  assert.equal((e.cause as NodeJS.ErrnoException | undefined)?.code ?? osCode, osCode);
}

/** Whether this process can write into a folder whose mode forbids it (root can). */
function writesDespitePermissions(folder: string): boolean {
  try {
    writeFileSync(join(folder, 'probe'), '');
  } catch {
    return false;
  }
  rmSync(join(folder, 'probe'));
  return true;
}

/** The pid on the first line of a folder's owner file. */
function ownerPid(folder: string): number {
  return Number(readFileSync(join(folder, 'tidemark.lock'), 'utf8').split('\n')[0]);
}
