import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { TypedEmitter } from '../../src/events.js';
import { silentLogger } from '../../src/index.js';
import { sweepRetention } from '../../src/maintenance/retention-sweep/sweep.js';
import type { SweepInputs } from '../../src/maintenance/sweeps.js';
import { systemClock } from '../../src/model/clock.js';
import { BatchPace } from '../../src/retention/batch-pace.js';
import { inDeletionBatch } from '../../src/storage/retention-gate.js';
import type { BatchCursor, DueBatch, RetentionCapability } from '../../src/storage/storage.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { describePostgresOnly } from '../support/each-driver.js';

/** What both drivers report for a statement the database cancelled. */
const cancelled = () =>
  Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });

describe('a batch the database cancels for running too long', () => {
  test('runs again halved until it passes; the size that passed is reported', async () => {
    const tried: number[] = [];
    const pace = new BatchPace(1_000, 1_000);
    const { value, size } = await pace.run(async (n) => {
      tried.push(n);
      if (n > 300) throw cancelled();
      return n * 2;
    });
    assert.deepEqual(tried, [1_000, 500, 250]);
    assert.deepEqual({ value, size }, { value: 500, size: 250 });
    assert.equal(pace.size, 500, 'a fast batch grows back');
  });

  test('at the smallest batch pacing takes, the cancellation is the error; other errors are at once', async () => {
    const pace = new BatchPace(150, 1_000);
    const tried: number[] = [];
    await assert.rejects(
      pace.run(async (n) => {
        tried.push(n);
        throw cancelled();
      }),
      /statement timeout/,
    );
    assert.deepEqual(tried, [150, 100]);
    const other = new BatchPace(1_000, 1_000);
    let calls = 0;
    await assert.rejects(
      other.run(async () => {
        calls++;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }),
      /deadlock/,
    );
    assert.equal(calls, 1);
  });

  test('a sweep pass whose large batches time out drains every due tree with smaller ones', async () => {
    let due = 1_234;
    const sizes: number[] = [];
    const retention = {
      async deleteDueBatch(n: number, _from: BatchCursor, timeoutMs?: number): Promise<DueBatch> {
        assert.equal(timeoutMs, 30_000);
        sizes.push(n);
        if (n > 200) throw cancelled();
        const deleted = Math.min(n, due);
        due -= deleted;
        return {
          scanned: deleted,
          next: { after: '', afterId: '0' },
          deleted: [{ queue: 'q', status: 'completed', count: deleted }],
        };
      },
      deleteConsumedSignals: async () => 0,
      deleteDueLogLines: async () => 0,
      deleteExpiredAudit: async () => 0,
      recordSweep: async () => {},
      reclaimSpace: async () => {},
    } as unknown as RetentionCapability;
    const inputs = {
      retention,
      controls: {},
      turns: {},
      events: new TypedEmitter(),
      logger: silentLogger,
      clock: systemClock,
    } as unknown as SweepInputs;
    const result = await sweepRetention(inputs, { batchSize: 1_000, statementTimeoutMs: 30_000 });
    assert.equal(result.error, undefined);
    assert.equal(result.jobs, 1_234);
    assert.deepEqual(sizes.slice(0, 4), [1_000, 500, 250, 125]);
  });
});

describePostgresOnly('the statement timeout of a deletion batch', ({ open }) => {
  test('is set for the batch transaction, and the database cancels a statement past it', async () => {
    const tm = await open({ logger: silentLogger });
    const db = runnerOf(engineOf(tm).storage);
    const shown = await inDeletionBatch(
      db,
      (tx) => tx.query<{ statement_timeout: string }>('show statement_timeout'),
      1_234,
    );
    assert.equal(shown.rows[0].statement_timeout, '1234ms');
    await assert.rejects(
      inDeletionBatch(db, (tx) => tx.query('select pg_sleep(2)'), 50),
      (error: unknown) => (error as { code?: string }).code === '57014',
    );
    const after = await db.driver.query<{ statement_timeout: string }>('show statement_timeout');
    assert.equal(after.rows[0].statement_timeout, '0', 'the timeout ends with the transaction');
  });
});
