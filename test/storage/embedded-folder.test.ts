import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DatabaseLockedError, Tidemark } from '../../src/index.js';
import { TEST_DRIVERS } from '../support/databases.js';

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
      mkdirSync(folder);
      writeFileSync(join(folder, 'tidemark.lock'), String(deadPid()));
      const tm = await Tidemark.open({ database: folder });
      try {
        assert.equal(readFileSync(join(folder, 'tidemark.lock'), 'utf8'), String(process.pid));
        tm.createQueue({ name: 'q' });
        const { id } = await tm.addJob({ queue: 'q' });
        assert.equal(typeof id, 'string');
        const job = await tm.getJob(id);
        assert.ok(job?.createdAt instanceof Date);
        await assert.rejects(Tidemark.open({ database: folder }), (e: unknown) => {
          assert.ok(e instanceof DatabaseLockedError);
          assert.equal(e.code, 'DATABASE_LOCKED');
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

    test('a folder held by another live process is refused before anything is opened', async () => {
      const folder = join(root, 'held');
      mkdirSync(folder);
      // The test runner that started this process is alive for as long as this test runs.
      writeFileSync(join(folder, 'tidemark.lock'), String(process.ppid));
      await assert.rejects(
        Tidemark.open({ database: folder }),
        (e: unknown) => e instanceof DatabaseLockedError && e.details.pid === process.ppid,
      );
      assert.equal(readFileSync(join(folder, 'tidemark.lock'), 'utf8'), String(process.ppid));
    });
  });
}
