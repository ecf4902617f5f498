import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/**
 * A batch whose rows differ in their data alone is written by a statement of its own
 * (insertUniformJobs), the options they share bound once. These check what it stores, and
 * that a batch in which one row differs in any shared option is not taken for one.
 */
interface Row {
  data: unknown;
  id: string;
  max_attempts: number;
  priority: number;
  queue: string;
  retention: Record<string, number>;
}

const QUEUE = { name: 'bulk', maxAttempts: 4, retention: { completed: 22 } };

describeEachDriver('a batch of jobs that differ in their data alone', ({ open }) => {
  test("each job is stored with its own data and its queue's options, ids in input order", async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue(QUEUE);
    const data = [{ n: 1 }, null, 'text', [1, 2], { nested: { deep: true } }, 3.5];
    const added = await tm.addJobs(data.map((d) => ({ queue: QUEUE.name, data: d })));
    const rows = await rawQuery<Row>(
      tm,
      `select id::text as id, queue, data, priority, max_attempts, retention from "${tm.schema}".jobs order by id`,
    );
    assert.deepEqual(
      rows.map((row) => row.id),
      added.map((result) => result.id),
    );
    assert.deepEqual(
      rows.map((row) => row.data),
      data,
    );
    for (const row of rows) {
      assert.deepEqual(
        [row.queue, row.priority, row.max_attempts, row.retention],
        [QUEUE.name, 0, QUEUE.maxAttempts, QUEUE.retention],
      );
    }
  });

  test('a row that differs in one shared option keeps its own, and the rows beside it theirs', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue(QUEUE);
    tm.createQueue({ name: 'other' });
    const variants: { options: Record<string, unknown>; check: (row: Row) => void }[] = [
      { options: { priority: 5 }, check: (row) => assert.equal(row.priority, 5) },
      { options: { maxAttempts: 9 }, check: (row) => assert.equal(row.max_attempts, 9) },
      {
        options: { retention: { completed: 11 } },
        check: (row) => assert.deepEqual(row.retention, { completed: 11 }),
      },
      { options: { queue: 'other' }, check: (row) => assert.equal(row.queue, 'other') },
    ];
    for (const { options, check } of variants) {
      const added = await tm.addJobs([
        { queue: QUEUE.name, data: 'before' },
        { queue: QUEUE.name, data: 'differs', ...options },
        { queue: QUEUE.name, data: 'after' },
      ]);
      const rows = await rawQuery<Row>(
        tm,
        `select id::text as id, queue, data, priority, max_attempts, retention from "${tm.schema}".jobs
          where id = any($1::bigint[]) order by id`,
        [added.map((result) => result.id)],
      );
      assert.deepEqual(
        rows.map((row) => row.data),
        ['before', 'differs', 'after'],
      );
      check(rows[1]);
      for (const row of [rows[0], rows[2]]) {
        assert.deepEqual(
          [row.queue, row.priority, row.max_attempts, row.retention],
          [QUEUE.name, 0, QUEUE.maxAttempts, QUEUE.retention],
          JSON.stringify(options),
        );
      }
    }
  });
});
