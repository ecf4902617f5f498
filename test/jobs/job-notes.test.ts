import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { InvalidOptionError, NOTE_LIMITS, silentLogger } from '../../src/index.js';
import { runHandler } from '../../src/testing/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

const refusedAt = (field: string) => (error: unknown) =>
  error instanceof InvalidOptionError && error.field === field;

describeEachDriver('progress, metadata and logs', ({ open, openOnClock }) => {
  test('what a handler says survives its retry: the last progress, metadata merged over attempts, each line with its attempt', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'import',
      maxAttempts: 2,
      backoff: { delaySeconds: 5, jitter: false },
      handler: (job, ctx) => {
        const runs = ((ctx.metadata.get('runs') as number | undefined) ?? 0) + 1;
        ctx.metadata.set('runs', runs);
        ctx.progress(runs * 40);
        ctx.log.info('reading rows', { attempt: job.attempts });
        if (job.attempts === 1) {
          ctx.metadata.set('firstError', 'timeout');
          ctx.log.error('the upstream timed out');
          throw new Error('upstream timeout');
        }
        ctx.metadata.set('firstError', undefined);
        ctx.progress({ done: 120, total: 120 });
        ctx.log.warn('done');
        return 'ok';
      },
    });
    const { id } = await tm.addJob({ queue: 'import', data: {} });
    await tm.runUntilIdle();
    const failedOnce = await tm.getJob(id);
    assert.equal(failedOnce?.status, 'retry');
    assert.equal(failedOnce?.progress, 40, 'written before the failure was');
    assert.deepEqual(failedOnce?.metadata, { runs: 1, firstError: 'timeout' });
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'completed');
    assert.deepEqual(job?.progress, { done: 120, total: 120 });
    assert.deepEqual(job?.metadata, { runs: 2 }, 'the second attempt read the first one’s metadata');
    const logs = await tm.getJobLogs(id);
    assert.deepEqual(
      logs?.lines.map((line) => [line.attempt, line.level, line.message, line.attrs]),
      [
        [1, 'info', 'reading rows', { attempt: 1 }],
        [1, 'error', 'the upstream timed out', null],
        [2, 'info', 'reading rows', { attempt: 2 }],
        [2, 'warn', 'done', null],
      ],
    );
    assert.equal(logs?.dropped, 0);
    assert.ok(logs?.lines.every((line) => line.at instanceof Date));
    const detail = await tm.getJobDetail(id);
    assert.deepEqual(
      detail?.logs.lines.map((line) => line.message),
      logs?.lines.map((line) => line.message),
    );
  });

  test('bad notes throw InvalidOptionError naming the field and change nothing; the job goes on', async () => {
    const tm = await openOnClock();
    const refused: string[] = [];
    tm.createQueue({
      name: 'careful',
      handler: (_job, ctx) => {
        ctx.progress(25);
        ctx.metadata.set('keep', 1);
        const tries: [string, () => void][] = [
          ['progress', () => ctx.progress(101)],
          ['progress', () => ctx.progress(Number.NaN)],
          ['progress', () => ctx.progress('half' as never)],
          ['progress', () => ctx.progress([1, 2] as never)],
          ['metadata.key', () => ctx.metadata.set('', 1)],
          ['metadata.fn', () => ctx.metadata.set('fn', () => 1)],
          ['metadata', () => ctx.metadata.set('big', 'x'.repeat(NOTE_LIMITS.metadataBytes))],
          ['log.message', () => ctx.log.info(42 as never)],
          ['log.attrs', () => ctx.log.info('x', ['a'] as never)],
        ];
        for (const [field, call] of tries) {
          assert.throws(call, refusedAt(field), field);
          refused.push(field);
        }
        return 'went on';
      },
    });
    const { id } = await tm.addJob({ queue: 'careful', data: {} });
    await tm.runUntilIdle();
    assert.equal(refused.length, 9);
    const job = await tm.getJob(id);
    assert.deepEqual(
      [job?.status, job?.output, job?.progress, job?.metadata],
      ['completed', 'went on', 25, { keep: 1 }],
    );
    assert.deepEqual((await tm.getJobLogs(id))?.lines, []);
  });

  test('a job keeps at most 1,000 lines over all its attempts; the rest are counted, not kept', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'chatty',
      maxAttempts: 2,
      backoff: { delaySeconds: 0, jitter: false },
      handler: (job, ctx) => {
        for (let i = 0; i < 700; i++) ctx.log.info(`line ${i}`);
        if (job.attempts === 1) throw new Error('again');
      },
    });
    const { id } = await tm.addJob({ queue: 'chatty', data: {} });
    await tm.runUntilIdle();
    await tm.runUntilIdle();
    const first = await tm.getJobLogs(id, { limit: 1000 });
    assert.equal(first?.lines.length, NOTE_LIMITS.logLines);
    assert.equal(first?.dropped, 400);
    assert.equal(first?.next, null);
    assert.deepEqual(
      [first?.lines[699].attempt, first?.lines[700].attempt, first?.lines[999].message],
      [1, 2, 'line 299'],
    );
    const paged = await tm.getJobLogs(id, { limit: 300, after: first?.lines[599].id });
    assert.equal(paged?.lines[0].message, 'line 600');
    assert.equal(paged?.next, paged?.lines[299].id);
    assert.equal(await tm.getJobLogs('999999'), null);
    await assert.rejects(tm.getJobLogs(id, { limit: 0 }), refusedAt('options.limit'));
  });

  test('a job keeps at most 256 KiB of log; a line is its message and attributes in bytes', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'wide',
      handler: (_job, ctx) => {
        for (let i = 0; i < 300; i++) ctx.log.info('x'.repeat(1000), { i });
      },
    });
    const { id } = await tm.addJob({ queue: 'wide', data: {} });
    await tm.runUntilIdle();
    const logs = await tm.getJobLogs(id, { limit: 1000 });
    const bytes = (logs?.lines ?? []).reduce(
      (sum, line) => sum + 1000 + JSON.stringify(line.attrs).length,
      0,
    );
    assert.ok(bytes <= NOTE_LIMITS.logBytes, `${bytes} bytes kept`);
    assert.ok(bytes > NOTE_LIMITS.logBytes - 1010, `${bytes} bytes kept: the caps take all that fits`);
    assert.equal((logs?.lines.length ?? 0) + (logs?.dropped ?? 0), 300);
  });

  test('while the job runs, notes are written at most once a second, the latest value winning', async () => {
    const tm = await open({ logger: silentLogger });
    const notes = engineOf(tm).storage.notes;
    let writes = 0;
    const write = notes.writeNotes;
    notes.writeNotes = (...args) => {
      writes++;
      return write(...args);
    };
    let release: () => void = () => {};
    tm.createQueue({
      name: 'long',
      handler: async (_job, ctx) => {
        for (let i = 1; i <= 50; i++) ctx.progress(i);
        ctx.log.info('halfway');
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        ctx.progress(100);
      },
    });
    const { id } = await tm.addJob({ queue: 'long', data: {} });
    const worker = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await worker.start();
    const running = await waitFor('the progress of the running job', async () => {
      const job = await tm.getJob(id);
      return job?.progress === 50 ? job : null;
    });
    assert.equal(running.status, 'active');
    assert.equal(writes, 1, 'fifty calls, one write');
    assert.equal((await tm.getJobLogs(id))?.lines[0]?.message, 'halfway');
    release();
    await waitFor('the job to complete', async () => (await tm.getJob(id))?.status === 'completed');
    await worker.stop();
    assert.equal((await tm.getJob(id))?.progress, 100, 'the last value went with the outcome');
    assert.equal(writes, 2);
  });

  test('a job cancelled while it runs takes none of what its handler says after', async () => {
    const tm = await open({ logger: silentLogger });
    let release: () => void = () => {};
    tm.createQueue({
      name: 'cancel-me',
      handler: async (_job, ctx) => {
        ctx.progress(10);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        ctx.progress(90);
        ctx.log.info('too late');
      },
    });
    const { id } = await tm.addJob({ queue: 'cancel-me', data: {} });
    const worker = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await worker.start();
    await waitFor('the first progress', async () => (await tm.getJob(id))?.progress === 10);
    await tm.cancelJob(id);
    release();
    await worker.stop();
    const job = await tm.getJob(id);
    assert.deepEqual([job?.status, job?.progress], ['cancelled', 10]);
    assert.deepEqual((await tm.getJobLogs(id))?.lines, []);
  });

  test('runHandler checks notes as the engine does and records them', async () => {
    const run = await runHandler((_job, ctx) => {
      ctx.progress({ done: 1 });
      ctx.metadata.set('a', 1);
      ctx.log.warn('w', { k: 1 });
      assert.throws(() => ctx.progress(-1), refusedAt('progress'));
      return ctx.metadata.get('a');
    }, {});
    assert.equal(run.output, 1);
    assert.deepEqual(run.calls, [
      { kind: 'progress', value: { done: 1 } },
      { kind: 'metadata', key: 'a', value: 1 },
      { kind: 'log', level: 'warn', message: 'w', attrs: { k: 1 } },
    ]);
  });
});
