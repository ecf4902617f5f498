import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, type Job } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';

const refusedAt = (field: string) => (error: unknown) =>
  error instanceof InvalidOptionError && error.field === field;

const idsOf = (jobs: Job[]) => jobs.map((job) => Number(job.id));

describeEachDriver('tags, tm.listJobs and tm.countJobs', ({ openOnClock }) => {
  test('tags are stored once each and refused by name when bad, with nothing written', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'q', handler: () => {} });
    const { id } = await tm.addJob({ queue: 'q', data: {}, tags: ['customer:42', 'import', 'import'] });
    assert.deepEqual((await tm.getJob(id))?.tags, ['customer:42', 'import']);
    const untagged = await tm.addJob({ queue: 'q', data: {} });
    assert.deepEqual((await tm.getJob(untagged.id))?.tags, []);
    const bad: [unknown, string][] = [
      [['ok', ''], 'tags[1]'],
      [['x'.repeat(101)], 'tags[0]'],
      [[7], 'tags[0]'],
      [[], 'tags'],
      [Array.from({ length: 21 }, (_, i) => `t${i}`), 'tags'],
      ['import', 'tags'],
    ];
    for (const [tags, field] of bad) {
      await assert.rejects(tm.addJob({ queue: 'q', data: {}, tags } as never), refusedAt(field), field);
    }
    await assert.rejects(
      tm.addJobs([
        { queue: 'q', data: {}, tags: ['fine'] },
        { queue: 'q', data: {}, tags: ['a\u0000b'] },
      ]),
      refusedAt('jobs[1].tags[0]'),
    );
    assert.equal((await tm.countJobs()).count, 2, 'nothing more was written');
  });

  test('listJobs pages by keyset with a cursor, both ways, through each filter', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'a', handler: () => {} });
    tm.createQueue({ name: 'b', keys: { concurrency: 1 }, handler: () => {} });
    await tm.addJobs(
      Array.from({ length: 30 }, (_, n) => ({
        queue: n % 2 === 0 ? 'a' : 'b',
        data: { n },
        ...(n % 3 === 0 ? { tags: ['third', `n:${n}`] } : {}),
        ...(n % 2 === 1 ? { key: n % 4 === 1 ? 'tenant:x' : 'tenant:y' } : {}),
      })),
    );
    const all = idsOf((await tm.listJobs({ limit: 1000 })).jobs);
    assert.equal(all.length, 30);
    assert.deepEqual(
      all,
      [...all].sort((x, y) => y - x),
      'newest first',
    );

    // Every page of every filter, walked with its cursor, is the filter's whole answer in order.
    const walk = async (filter: Parameters<typeof tm.listJobs>[0]) => {
      const seen: number[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 40; pages++) {
        const page = await tm.listJobs({ ...filter, limit: 4, ...(after ? { after } : {}) });
        seen.push(...idsOf(page.jobs));
        if (page.cursor === null) return seen;
        after = page.cursor;
      }
      throw new Error('the cursor never ended');
    };
    const byData = async (pick: (job: Job) => boolean, order: 'asc' | 'desc' = 'desc') => {
      const jobs = (await tm.listJobs({ limit: 1000, order })).jobs.filter(pick);
      return idsOf(jobs);
    };
    const n = (job: Job) => (job.data as { n: number }).n;
    assert.deepEqual(await walk({}), all);
    assert.deepEqual(await walk({ order: 'asc' }), [...all].reverse());
    assert.deepEqual(await walk({ queue: 'a' }), await byData((job) => job.queue === 'a'));
    assert.deepEqual(await walk({ status: 'pending' }), all);
    assert.deepEqual(await walk({ tags: ['third'] }), await byData((job) => n(job) % 3 === 0));
    assert.deepEqual(await walk({ tags: ['third', 'n:9'] }), await byData((job) => n(job) === 9));
    assert.deepEqual(
      await walk({ key: 'tenant:x', order: 'asc' }),
      await byData((job) => job.key === 'tenant:x', 'asc'),
    );
    assert.deepEqual(
      await walk({ queue: 'b', tags: ['third'] }),
      await byData((job) => job.queue === 'b' && n(job) % 3 === 0),
    );
    assert.deepEqual(await walk({ queue: 'nowhere' }), []);

    assert.deepEqual(await tm.countJobs({ tags: ['third'] }), { count: 10, exact: true });
    assert.deepEqual(await tm.countJobs({ queue: 'b', max: 5 }), { count: 5, exact: false });
    assert.deepEqual(await tm.countJobs({ key: 'tenant:y' }), { count: 7, exact: true });
    assert.deepEqual(await tm.countJobs({ status: 'completed' }), { count: 0, exact: true });
  });

  test('a cursor altered, or passed with another filter, is refused by name', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'a', handler: () => {} });
    await tm.addJobs(Array.from({ length: 5 }, (_, n) => ({ queue: 'a', data: { n } })));
    const { cursor } = await tm.listJobs({ queue: 'a', limit: 2 });
    assert.ok(cursor);
    const [id, sum] = Buffer.from(cursor, 'base64url').toString().split('.');
    const forged = Buffer.from(`${Number(id) - 1}.${sum}`).toString('base64url');
    for (const filter of [
      { queue: 'a', after: forged },
      { queue: 'a', after: 'not a cursor' },
      { queue: 'b', after: cursor },
      { queue: 'a', order: 'asc' as const, after: cursor },
    ]) {
      await assert.rejects(tm.listJobs(filter), refusedAt('after'), JSON.stringify(filter));
    }
    await assert.rejects(tm.listJobs({ limit: 0 }), refusedAt('limit'));
    await assert.rejects(tm.listJobs({ status: 'done' } as never), refusedAt('status'));
    await assert.rejects(tm.listJobs({ createdAfter: 'yesterday' }), refusedAt('createdAfter'));
    await assert.rejects(
      tm.listJobs({ from: new Date(), createdAfter: new Date() }),
      refusedAt('filter.from'),
    );
    await assert.rejects(tm.countJobs({ nope: 1 } as never), refusedAt('nope'));
  });

  test('creation times and the bulk actions read the same filter, tags and key included', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'a',
      maxAttempts: 1,
      handler: () => {
        throw new Error('no');
      },
    });
    const early = await tm.addJobs([
      { queue: 'a', data: { n: 0 }, tags: ['batch:1'] },
      { queue: 'a', data: { n: 1 }, tags: ['batch:2'] },
    ]);
    await tm.clock.advance(3600);
    const late = await tm.addJob({ queue: 'a', data: { n: 2 }, tags: ['batch:1'] });
    const cut = new Date(tm.clock.now().getTime() - 1000);
    assert.deepEqual(idsOf((await tm.listJobs({ createdAfter: cut })).jobs), [Number(late.id)]);
    assert.deepEqual(
      idsOf((await tm.listJobs({ createdBefore: cut, order: 'asc' })).jobs),
      early.map((job) => Number(job.id)),
    );
    await tm.runUntilIdle();
    const retried = await tm.retryJobs({ status: 'failed', tags: ['batch:1'] });
    assert.equal(retried.matched, 2);
    const pending = (await tm.listJobs({ status: 'pending' })).jobs;
    assert.deepEqual(idsOf(pending).sort(), [Number(early[0].id), Number(late.id)].sort());
  });
});
