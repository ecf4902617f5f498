import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { InvalidOptionError, JobStatus, Tidemark } from '../../src/index.js';
import { PG_URL, rawQuery, sharedPgliteInstance, TEST_DRIVERS } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';

class Rollback extends Error {}

if (TEST_DRIVERS.includes('pg')) {
  describeEachDriver('addJob with { tx } (pg client)', ({ kind, open }) => {
    if (kind !== 'pg') return;

    test('commit: invisible to workers until commit, then processed', async () => {
      const tm = await open();
      const ran: unknown[] = [];
      tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.data) });
      await fastWorker(tm).start();
      const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
      const client = await pool.connect();
      try {
        await client.query('begin');
        const { id } = await tm.addJob({ queue: 'q', data: 'in tx' }, { tx: client });
        const { rows } = await client.query(`select status from "${tm.schema}".jobs where id = $1`, [id]);
        assert.deepEqual(rows, [{ status: 'pending' }]);
        // A job added after it, outside the transaction, is processed while it is not seen.
        const outside = await tm.addJob({ queue: 'q', data: 'outside' });
        await waitForStatus(tm, outside.id, JobStatus.COMPLETED);
        assert.equal(await tm.getJob(id), null);
        assert.deepEqual(ran, ['outside']);
        await client.query('commit');
        await waitForStatus(tm, id, JobStatus.COMPLETED);
        assert.deepEqual(ran, ['outside', 'in tx']);
      } finally {
        client.release();
        await pool.end();
      }
    });

    test('rollback: the job is gone and never processed, its dedupe lock with it', async () => {
      const tm = await open();
      const ran: unknown[] = [];
      tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.data) });
      await fastWorker(tm).start();
      const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
      const client = await pool.connect();
      let id: string;
      try {
        await client.query('begin');
        ({ id } = await tm.addJob(
          { queue: 'q', data: 'rolled back', idempotencyKey: { key: 'k', ttlSeconds: 3_600 } },
          { tx: client },
        ));
        await client.query('rollback');
      } finally {
        client.release();
        await pool.end();
      }
      assert.equal(await tm.getJob(id), null);
      assert.equal(await countRows(tm, 'unique_locks'), 0);
      // the key is free again: a new add is not a duplicate of the rolled-back one
      const again = await tm.addJob({
        queue: 'q',
        data: 'after',
        idempotencyKey: { key: 'k', ttlSeconds: 3_600 },
      });
      assert.equal(again.deduplicated, false);
      await waitForStatus(tm, again.id, JobStatus.COMPLETED);
      assert.deepEqual(ran, ['after']);
    });
  });
}

if (TEST_DRIVERS.includes('pglite')) {
  describeEachDriver('addJob with { tx } (PGlite transaction)', ({ kind, open }) => {
    if (kind !== 'pglite') return;
    const instance = (): Promise<PGlite> => sharedPgliteInstance();

    test('commit: the job is processed', async () => {
      const tm = await open();
      const ran: unknown[] = [];
      tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.data) });
      await tm.listQueues(); // the queue definition is stored before the transaction starts
      const db = await instance();
      const id = await db.transaction(async (tx) => {
        const added = await tm.addJob({ queue: 'q', data: 'in tx' }, { tx });
        const { rows } = await tx.query<{ n: number }>(
          `select count(*)::int as n from "${tm.schema}".jobs where id = $1`,
          [added.id],
        );
        assert.equal(rows[0].n, 1);
        return added.id;
      });
      await fastWorker(tm).start();
      await waitForStatus(tm, id, JobStatus.COMPLETED);
      assert.deepEqual(ran, ['in tx']);
    });

    test('rollback: the job is gone and never processed', async () => {
      const tm = await open();
      const ran: unknown[] = [];
      tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.data) });
      await tm.listQueues();
      const db = await instance();
      let id = '';
      await assert.rejects(
        db.transaction(async (tx) => {
          ({ id } = await tm.addJob({ queue: 'q', data: 'rolled back' }, { tx }));
          throw new Rollback();
        }),
        Rollback,
      );
      assert.equal(await tm.getJob(id), null);
      const after = await tm.addJob({ queue: 'q', data: 'after' });
      await fastWorker(tm).start();
      await waitForStatus(tm, after.id, JobStatus.COMPLETED);
      assert.deepEqual(ran, ['after']);
    });

    test('a queue created just before the transaction does not deadlock it', {
      timeout: 30_000,
    }, async () => {
      const tm = await open();
      tm.createQueue({ name: 'fresh', handler: () => 'ran' });
      const db = await instance();
      const id = await db.transaction(async (tx) => (await tm.addJob({ queue: 'fresh' }, { tx })).id);
      await fastWorker(tm).start();
      assert.equal(await tm.result(id), 'ran');
    });

    test('a queue defined by another process is read through the transaction, not around it', {
      timeout: 30_000,
    }, async () => {
      const producer = await open();
      producer.createQueue({ name: 'remote' });
      await producer.listQueues();
      // A second engine on the same schema that never defined the queue itself.
      const db = await instance();
      const tm = await Tidemark.open({ database: db, schema: producer.schema });
      try {
        const id = await db.transaction(async (tx) => (await tm.addJob({ queue: 'remote' }, { tx })).id);
        assert.equal((await tm.getJob(id))?.status, JobStatus.PENDING);
      } finally {
        await tm.close();
      }
    });
  });
}

describeEachDriver('addJob with { tx }: validation', ({ open }) => {
  test('something that is not a transaction is refused before anything is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await assert.rejects(
      tm.addJob({ queue: 'q' }, { tx: {} as never }),
      (e: unknown) => e instanceof InvalidOptionError && e.field === 'tx',
    );
    const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
    assert.equal(row.n, 0);
  });
});

describe('transactional enqueue drivers', () => {
  test('at least one driver is covered', () => {
    assert.ok(TEST_DRIVERS.length > 0);
  });
});
