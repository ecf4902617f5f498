import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { InvalidOptionError, JobValidationError, QueueNotFoundError } from '../../src/index.js';
import { CHUNK_ROWS } from '../../src/intake/add-in-chunks.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/*
 * A bulk add of several chunks (on PostgreSQL, written chunk by chunk in one transaction while
 * the next chunk is checked; on PGlite, in one statement) is all or nothing like any other:
 * whatever is refused in a later chunk leaves none of the earlier chunks behind.
 */

const COUNT = CHUNK_ROWS * 4 + 37;
const LATE = CHUNK_ROWS * 3 + 5;

async function jobCount(tm: Parameters<typeof rawQuery>[0]): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
  return row.n;
}

describeEachDriver('addJobs of several chunks', ({ open }) => {
  test('every job is added once, in input order, with rising ids, and announced once per queue', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    tm.createQueue({ name: 'b' });
    const announced = new Map<string, number>();
    tm.on('job:added', ({ queue, count }) => announced.set(queue, (announced.get(queue) ?? 0) + count));
    const results = await tm.addJobs(
      Array.from({ length: COUNT }, (_, i) => ({ queue: i % 3 ? 'a' : 'b', data: { i }, priority: i % 4 })),
    );
    assert.equal(results.length, COUNT);
    const rows = await rawQuery<{ id: string; i: number; queue: string; priority: number }>(
      tm,
      `select id::text as id, (data ->> 'i')::int as i, queue, priority from "${tm.schema}".jobs j order by j.id`,
    );
    assert.equal(rows.length, COUNT);
    rows.forEach((row, n) => {
      assert.equal(row.i, n, 'ids rise with the input');
      assert.equal(row.id, results[n].id);
      assert.equal(row.queue, n % 3 ? 'a' : 'b');
      assert.equal(row.priority, n % 4);
    });
    assert.deepEqual(Object.fromEntries(announced), {
      a: rows.filter((r) => r.queue === 'a').length,
      b: rows.filter((r) => r.queue === 'b').length,
    });
  });

  test('an input refused in a late chunk is named, and no chunk is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    const inputs: Record<string, unknown>[] = Array.from({ length: COUNT }, (_, i) => ({
      queue: 'a',
      data: { i },
    }));
    inputs[LATE] = { queue: 'a', data: { i: LATE }, priority: 'high' };
    await assert.rejects(
      tm.addJobs(inputs as never),
      (error: unknown) => error instanceof InvalidOptionError && error.field === `jobs[${LATE}].priority`,
    );
    assert.equal(await jobCount(tm), 0);
  });

  test("a typed queue's schema refusing a late chunk's data writes nothing", async () => {
    const tm = await open();
    const queue = tm.defineQueue({ name: 'typed', input: z.object({ i: z.number().max(LATE - 1) }) });
    await assert.rejects(
      queue.addMany(Array.from({ length: COUNT }, (_, i) => ({ data: { i } }))),
      JobValidationError,
    );
    assert.equal(await jobCount(tm), 0);
  });

  test('a chunk the database refuses while the next is being checked fails the call, writes nothing', async () => {
    const tm = await open();
    // The first chunk's insert fails in the database (a trigger refuses job 3) while the
    // second chunk waits on an asynchronous schema: the failure arrives mid-check.
    await rawQuery(
      tm,
      `create function "${tm.schema}".refuse_three() returns trigger language plpgsql as $$
       begin
         if new.data ->> 'i' = '3' then raise exception 'job 3 refused'; end if;
         return new;
       end $$`,
    );
    await rawQuery(
      tm,
      `create trigger refuse_three before insert on "${tm.schema}".jobs
       for each row execute function "${tm.schema}".refuse_three()`,
    );
    let schemaCalls = 0;
    const slow: StandardSchemaV1<{ i: number }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value) => {
          // The first chunk passes at once; every later job waits long enough for the first
          // chunk's statement to have failed.
          if (++schemaCalls > CHUNK_ROWS) await new Promise((resolve) => setTimeout(resolve, 1));
          return { value: value as { i: number } };
        },
      },
    };
    const queue = tm.defineQueue({ name: 'slow', input: slow });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await assert.rejects(
        queue.addMany(Array.from({ length: COUNT }, (_, i) => ({ data: { i } }))),
        /job 3 refused/,
      );
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    assert.deepEqual(unhandled, []);
    assert.equal(await jobCount(tm), 0);
  });

  test('a queue unknown everywhere, first met in a late chunk, writes nothing', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    const inputs = Array.from({ length: COUNT }, (_, i) => ({
      queue: i === LATE ? 'nowhere' : 'a',
      data: { i },
    }));
    await assert.rejects(tm.addJobs(inputs), QueueNotFoundError);
    assert.equal(await jobCount(tm), 0);
  });
});
