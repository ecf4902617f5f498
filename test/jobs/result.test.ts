import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidJobStateError,
  InvalidOptionError,
  JobFailedError,
  JobNotFoundError,
  ResultTimeoutError,
} from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';

describeEachDriver('tm.result(id)', ({ open }) => {
  test('waits for the job and returns its output', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: (job) => ({ echo: job.data }) });
    const { id } = await tm.addJob({ queue: 'q', data: [1, 'two', { three: 3 }] });
    const waiting = tm.result(id);
    await fastWorker(tm).start();
    assert.deepEqual(await waiting, { echo: [1, 'two', { three: 3 }] });
  });

  test('throws JobFailedError carrying the status and error of a failed job', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'q',
      maxAttempts: 1,
      handler: () => {
        throw new TypeError('bad thing');
      },
    });
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await assert.rejects(tm.result(id), (e: unknown) => {
      assert.ok(e instanceof JobFailedError);
      assert.equal(e.code, 'JOB_FAILED');
      assert.equal(e.details.jobId, id);
      assert.equal(e.details.status, 'failed');
      assert.equal((e.details.error as { message: string }).message, 'bad thing');
      // The message itself carries the cause: a log line of the rejection is enough to act on.
      assert.equal(e.message, `job ${id} ended failed: TypeError: bad thing`);
      return true;
    });
  });

  test('a result that times out throws ResultTimeoutError; the job goes on', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 1 });
    const { id } = await tm.addJob({ queue: 'q' });
    await assert.rejects(tm.result(id, { timeoutSeconds: 0.05 }), (e: unknown) => {
      assert.ok(e instanceof ResultTimeoutError);
      assert.ok(!(e instanceof InvalidJobStateError));
      assert.equal(e.code, 'RESULT_TIMEOUT');
      assert.equal(e.jobId, id);
      assert.equal(e.status, 'pending');
      assert.match(e.message, new RegExp(`job ${id} did not finish within 0.05s \\(it is pending\\)`));
      return true;
    });
    await fastWorker(tm).start();
    assert.equal(await tm.result(id), 1);
  });

  test('throws JobNotFoundError for an unknown or deleted job', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 1 });
    await assert.rejects(
      tm.result('424242'),
      (e: unknown) => e instanceof JobNotFoundError && e.jobId === '424242' && e.code === 'JOB_NOT_FOUND',
    );
    const { id } = await tm.addJob({ queue: 'q' });
    await rawQuery(tm, `delete from "${tm.schema}".jobs where id = $1::bigint`, [id]);
    await assert.rejects(tm.result(id), JobNotFoundError);
  });

  test('a bad id is InvalidOptionError', async () => {
    const tm = await open();
    for (const id of ['', 'abc', '-1', '0', '1.5', '99999999999999999999']) {
      await assert.rejects(
        tm.result(id),
        (e: unknown) => e instanceof InvalidOptionError && e.field === 'id',
      );
    }
  });
});
