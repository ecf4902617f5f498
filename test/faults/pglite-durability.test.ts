import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, Tidemark } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { TEST_DRIVERS } from '../support/databases.js';
import { seedEmbeddedFolder } from '../support/pglite-boot.js';
import { type FixtureProcess, startFixture } from './support/processes.js';

interface Trial {
  acknowledged: string[];
  found: number;
  extra: number;
}

/** SIGKILL the fixture the moment it prints a line passing `test`, and wait until it is gone. */
async function killAtLine(child: FixtureProcess, test: (line: string) => boolean): Promise<void> {
  await child.line(test);
  child.child.kill('SIGKILL');
  assert.equal((await child.exited).signal, 'SIGKILL', child.stderr());
}

/**
 * Start the adding process on `folder` as trial `trial`, SIGKILL it the moment its first addJob
 * resolves, and return every id it printed.
 */
async function killAfterAdd(folder: string, trial: number, strict: boolean): Promise<string[]> {
  const child = startFixture('pglite-add', {
    TM_FAULTS_FOLDER: folder,
    TM_FAULTS_TRIAL: String(trial),
    TM_FAULTS_STRICT: strict ? '1' : '0',
  });
  await killAtLine(child, (l) => l.startsWith('added '));
  return child.lines.filter((l) => l.startsWith('added ')).map((l) => l.slice('added '.length));
}

/**
 * Reopen `folder` here and look for the jobs each trial acknowledged. A job counts as found
 * only with its own trial's data: a job lost with the id sequence would have its id handed out
 * again by a later trial, and that job must not pass for it.
 */
async function findAcknowledged(folder: string, acknowledged: string[][]): Promise<Trial[]> {
  const tm = await Tidemark.open({ database: folder, logger: silentLogger });
  try {
    const trials: Trial[] = [];
    for (const [i, ids] of acknowledged.entries()) {
      const trial = i + 1;
      let found = 0;
      for (const id of ids) {
        const data = (await tm.getJob(id))?.data as { trial?: number } | undefined;
        if (data?.trial === trial) found++;
      }
      const rows = (
        await runnerOf(engineOf(tm).storage).driver.query<{ n: number }>(
          `select count(*)::int as n from "${tm.schema}".jobs where (data ->> 'trial')::int = $1`,
          [trial],
        )
      ).rows;
      trials.push({ acknowledged: ids, found, extra: Number(rows[0].n) - found });
    }
    return trials;
  } finally {
    await tm.close();
  }
}

if (TEST_DRIVERS.includes('pglite')) {
  describe('embedded durability: a PGlite process killed with SIGKILL right after addJob resolves (PGlite only)', () => {
    const folders: string[] = [];
    /** A new embedded folder, made from the suite's cached data folder rather than by initdb. */
    const folder = async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tidemark-durability-'));
      folders.push(dir);
      await seedEmbeddedFolder(join(dir, 'db'));
      return join(dir, 'db');
    };
    after(() => {
      for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    });

    test('strictDurability syncs the WAL on each commit (fsync on, open_datasync); the default does not', async () => {
      // The settings are start parameters of each open, not state of the folder: one folder serves both.
      const dir = await folder();
      for (const strict of [false, true]) {
        const tm = await Tidemark.open({
          database: dir,
          strictDurability: strict,
          logger: silentLogger,
        });
        try {
          const show = async (name: string) =>
            (await runnerOf(engineOf(tm).storage).driver.query<Record<string, string>>(`show ${name}`))
              .rows[0][name];
          assert.equal(await show('fsync'), strict ? 'on' : 'off');
          assert.equal(await show('wal_sync_method'), strict ? 'open_datasync' : 'fdatasync');
          assert.equal(await show('synchronous_commit'), 'on');
        } finally {
          await tm.close();
        }
      }
    });

    test('a process killed while it runs a job leaves the job claimed, its attempt counted, with either setting', async () => {
      // One folder for both settings, the open that checks one kill adding the job of the next:
      // the killed process's job stays active, and a claim takes pending jobs only, so the next
      // process can start none but its own.
      const dir = await folder();
      let tm = await Tidemark.open({ database: dir, logger: silentLogger });
      try {
        for (const strict of [false, true]) {
          tm.createQueue({ name: 'durable' });
          const { id } = await tm.addJob({ queue: 'durable' });
          await tm.close();
          const child = startFixture('pglite-claim', {
            TM_FAULTS_FOLDER: dir,
            TM_FAULTS_STRICT: strict ? '1' : '0',
          });
          await killAtLine(child, (l) => l === `started ${id} 1`);
          tm = await Tidemark.open({ database: dir, logger: silentLogger });
          // The claim that started the attempt is in the folder: the attempt counts, and the job
          // is recovered once its lock lapses, as a job of a dead worker on PostgreSQL is.
          const job = await tm.getJob(id);
          assert.deepEqual(
            { status: job?.status, attempts: job?.attempts },
            { status: 'active', attempts: 1 },
            strict ? 'strictDurability' : 'default settings',
          );
        }
      } finally {
        await tm.close();
      }
    });

    test('a process killed while it runs a limited job keeps the token its start took', async () => {
      const dir = await folder();
      const tm = await Tidemark.open({ database: dir, logger: silentLogger });
      await tm.defineLimiter('quota', { limit: 1, periodSeconds: 3600 });
      tm.createQueue({ name: 'durable', limiters: [{ name: 'quota' }] });
      const { id } = await tm.addJob({ queue: 'durable' });
      await tm.close();
      const child = startFixture('pglite-claim', { TM_FAULTS_FOLDER: dir, TM_FAULTS_LIMITER: 'quota' });
      await killAtLine(child, (l) => l === `started ${id} 1`);
      const reopened = await Tidemark.open({ database: dir, logger: silentLogger });
      try {
        // The job started, so its token is spent: a lost grant would let the hour's one start
        // happen again once the job is recovered.
        const bucket = await reopened.limiterStatus('quota');
        assert.equal(bucket.tokens, 0, 'the grant was lost with the process');
        assert.equal((await reopened.getJob(id))?.attempts, 1);
      } finally {
        await reopened.close();
      }
    });

    for (const [mode, strict, trials] of [
      ['default settings', false, 5],
      ['strictDurability', true, 3],
    ] as const) {
      test(`${mode}: reopening the folder finds every acknowledged job, ${trials} kills in a row`, async (t) => {
        const dir = await folder();
        // The folder is examined once, after the last kill: every process after the first opens
        // the folder the previous kill left, so each kill's acknowledged jobs must survive that
        // recovery and every later kill as well.
        const acknowledged: string[][] = [];
        for (let trial = 1; trial <= trials; trial++)
          acknowledged.push(await killAfterAdd(dir, trial, strict));
        const results = await findAcknowledged(dir, acknowledged);
        for (const [i, r] of results.entries()) {
          assert.ok(r.acknowledged.length >= 1);
          assert.equal(
            r.found,
            r.acknowledged.length,
            `trial ${i + 1}: acknowledged jobs lost after the kill`,
          );
        }
        t.diagnostic(
          results
            .map(
              (r, i) =>
                `trial ${i + 1}: ${r.acknowledged.length} acknowledged, all found, ${r.extra} more committed`,
            )
            .join('; '),
        );
      });
    }
  });
}
