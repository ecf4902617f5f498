import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, JobStatus, QueueNotFoundError, Retention } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

describeEachDriver('addJob', ({ open }) => {
  test('adds a pending job with the documented fields', async () => {
    const tm = await open();
    tm.createQueue({ name: 'emails', maxAttempts: 5 });
    const { id, deduplicated } = await tm.addJob({ queue: 'emails', data: { to: 'a@b.c' }, priority: 3 });
    assert.equal(deduplicated, false);
    assert.equal(typeof id, 'string');
    const job = await tm.getJob(id);
    assert.ok(job);
    assert.equal(job.id, id);
    assert.equal(job.queue, 'emails');
    assert.equal(job.status, JobStatus.PENDING);
    assert.deepEqual(job.data, { to: 'a@b.c' });
    assert.equal(job.output, null);
    assert.equal(job.error, null);
    assert.equal(job.attempts, 0);
    assert.equal(job.maxAttempts, 5);
    assert.equal(job.priority, 3);
    assert.ok(job.runAt instanceof Date);
    assert.ok(job.createdAt instanceof Date);
    assert.equal(job.startedAt, null);
    assert.equal(job.finishedAt, null);
    assert.equal(job.parentId, null);
  });

  test('addJobs inserts a batch in input order', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const results = await tm.addJobs(Array.from({ length: 50 }, (_, i) => ({ queue: 'q', data: { i } })));
    assert.equal(results.length, 50);
    for (let i = 0; i < 50; i++) {
      const job = await tm.getJob(results[i].id);
      assert.deepEqual(job?.data, { i });
    }
  });

  test('concurrent addJobs batches each get their own ids in input order', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    tm.createQueue({ name: 'r', retention: Retention.TIGHT });
    // Batches racing for the id sequence interleave their ids; each must still map back.
    const batches = await Promise.all(
      [0, 1, 2, 3].map((b) =>
        tm.addJobs(
          Array.from({ length: 300 }, (_, i) => ({
            queue: i % 3 === 0 ? 'r' : 'q',
            data: { b, i },
            priority: i % 5,
            ...(i % 7 === 0 ? { delaySeconds: 60 } : {}),
          })),
        ),
      ),
    );
    const ids = batches.flat().map((r) => r.id);
    assert.equal(new Set(ids).size, 1200, 'every id is distinct');
    for (const [b, results] of batches.entries()) {
      const jobs = await Promise.all(results.map((r) => tm.getJob(r.id)));
      jobs.forEach((job, i) => {
        assert.deepEqual(job?.data, { b, i });
        assert.equal(job?.queue, i % 3 === 0 ? 'r' : 'q');
        assert.equal(job?.priority, i % 5);
      });
    }
  });

  test('delaySeconds and runAt set the run time', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const before = Date.now();
    const a = await tm.addJob({ queue: 'q', delaySeconds: 60 });
    const at = new Date(Date.now() + 3_600_000);
    const b = await tm.addJob({ queue: 'q', runAt: at });
    const ja = await tm.getJob(a.id);
    const jb = await tm.getJob(b.id);
    assert.ok(ja && ja.runAt.getTime() >= before + 59_000);
    assert.equal(jb?.runAt.getTime(), at.getTime());
  });

  test('an unknown queue is refused and nothing is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'known' });
    await assert.rejects(
      tm.addJobs([{ queue: 'known' }, { queue: 'nope' }]),
      (error: unknown) => error instanceof QueueNotFoundError && error.queue === 'nope',
    );
    const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
    assert.equal(row.n, 0);
  });

  test('bad options are refused with the field named and nothing is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const cases: [unknown, string][] = [
      [{ queue: 'q', priority: 1.5 }, 'priority'],
      [{ queue: 'q', delaySeconds: -1 }, 'delaySeconds'],
      [{ queue: 'q', maxAttempts: 0 }, 'maxAttempts'],
      [{ queue: 'q', data: { f: () => 1 } }, 'data.f'],
      [{ queue: 'q', data: 10n }, 'data'],
      [{ queue: 'q', runAt: 'not a date' }, 'runAt'],
      [{ queue: 'q', retention: { completed: -1 } }, 'retention.completed'],
      [{ queue: 'q', idempotencyKey: { key: '', ttlSeconds: 1 } }, 'idempotencyKey.key'],
      [{ queue: '' }, 'queue'],
      [{ queue: 'q', colour: 'red' }, 'colour'],
    ];
    for (const [input, field] of cases) {
      await assert.rejects(
        tm.addJob(input as never),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        `expected InvalidOptionError on ${field}`,
      );
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await assert.rejects(tm.addJob({ queue: 'q', data: cyclic }), InvalidOptionError);
    const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
    assert.equal(row.n, 0);
  });
});
