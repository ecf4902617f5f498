import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, type Tidemark } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows } from '../support/jobs.js';

const BAD_IDS: unknown[] = [
  '',
  'abc',
  '-1',
  '0',
  '1.5',
  ' 1',
  '1e3',
  '99999999999999999999',
  null,
  {},
  1.5,
  -3,
];

/** Rows in every table an operation could write to. */
async function snapshot(tm: Tidemark): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['jobs', 'queues', 'unique_locks', 'signals', 'checkpoints', 'schedules']) {
    out[table] = await countRows(tm, table);
  }
  return out;
}

function isInvalid(field: string) {
  return (e: unknown) => {
    assert.ok(e instanceof InvalidOptionError, `expected InvalidOptionError, got ${String(e)}`);
    assert.equal(e.field, field);
    assert.ok(['INVALID_OPTION', 'INVALID_RETENTION_POLICY'].includes(e.code), e.code);
    return true;
  };
}

describeEachDriver('every public method validates before it writes', ({ open }) => {
  test('bad job ids are refused by every method that takes one, with nothing written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await tm.addJob({ queue: 'q' });
    const before = await snapshot(tm);
    const byId: [string, (id: never) => Promise<unknown>][] = [
      ['getJob', (id) => tm.getJob(id)],
      ['result', (id) => tm.result(id)],
      ['cancelJob', (id) => tm.cancelJob(id)],
      ['retryJob', (id) => tm.retryJob(id)],
      ['pauseJob', (id) => tm.pauseJob(id)],
      ['resumeJob', (id) => tm.resumeJob(id)],
      ['deleteJob', (id) => tm.deleteJob(id)],
      ['deleteWorkflowSubtree', (id) => tm.deleteWorkflowSubtree(id)],
      ['getJobDetail', (id) => tm.getJobDetail(id)],
    ];
    for (const [method, call] of byId) {
      for (const id of BAD_IDS) {
        await assert.rejects(call(id as never), isInvalid('id'), `${method}(${JSON.stringify(id)})`);
      }
    }
    for (const id of BAD_IDS) {
      await assert.rejects(tm.signal(id as never, 'go'), isInvalid('jobId'));
    }
    assert.deepEqual(await snapshot(tm), before);
  });

  test('bad queue definitions are refused at once, naming the field, and nothing is stored', async () => {
    const tm = await open();
    const before = await snapshot(tm);
    const cases: [unknown, string][] = [
      [undefined, 'queue'],
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'q', handler: 'not a function' }, 'handler'],
      [{ name: 'q', concurrency: 0 }, 'concurrency'],
      [{ name: 'q', concurrency: 1.5 }, 'concurrency'],
      [{ name: 'q', maxAttempts: 0 }, 'maxAttempts'],
      [{ name: 'q', timeoutSeconds: 0 }, 'timeoutSeconds'],
      [{ name: 'q', timeoutSeconds: Number.NaN }, 'timeoutSeconds'],
      [{ name: 'q', backoff: { delaySeconds: -1 } }, 'backoff.delaySeconds'],
      [{ name: 'q', backoff: { delaySeconds: 1, factor: 0.5 } }, 'backoff.factor'],
      [{ name: 'q', backoff: { delaySeconds: 1, jitter: 'yes' } }, 'backoff.jitter'],
      [{ name: 'q', backoff: { delaySeconds: 1, speed: 2 } }, 'backoff.speed'],
      [{ name: 'q', retention: { completed: -5 } }, 'retention.completed'],
      [{ name: 'q', deleteCheckpointsOnComplete: 1 }, 'deleteCheckpointsOnComplete'],
      [{ name: 'q', colour: 'blue' }, 'colour'],
    ];
    for (const [input, field] of cases) {
      assert.throws(() => tm.createQueue(input as never), isInvalid(field), JSON.stringify(input));
    }
    await tm.listQueues(); // any queued definition write has landed
    assert.deepEqual(await snapshot(tm), before);
  });

  test('bad names for queue operations are refused', async () => {
    const tm = await open();
    for (const name of ['', 42, null, 'x'.repeat(201)]) {
      await assert.rejects(tm.pauseQueue(name as never), isInvalid('name'));
      await assert.rejects(tm.resumeQueue(name as never), isInvalid('name'));
    }
  });

  test('bad worker options are refused, naming the field', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => null });
    tm.createQueue({ name: 'no-handler' });
    const cases: [unknown, string][] = [
      [{ concurrency: 0 }, 'concurrency'],
      [{ concurrency: 2.5 }, 'concurrency'],
      [{ queues: [] }, 'queues'],
      [{ queues: ['unknown'] }, 'queues[0]'],
      [{ queues: ['q', 'no-handler'] }, 'queues[1]'],
      [{ lockSeconds: 0 }, 'lockSeconds'],
      [{ pollIntervalSeconds: -1 }, 'pollIntervalSeconds'],
      [{ tickIntervalSeconds: 0 }, 'tickIntervalSeconds'],
      [{ shutdownTimeoutSeconds: -1 }, 'shutdownTimeoutSeconds'],
      [{ sweep: { intervalSeconds: 0 } }, 'sweep.intervalSeconds'],
      [{ sweep: { batchSize: 0 } }, 'sweep.batchSize'],
      [{ uniqueLockSweep: { batchSize: 'many' } }, 'uniqueLockSweep.batchSize'],
      [{ speed: 'fast' }, 'speed'],
    ];
    for (const [input, field] of cases) {
      assert.throws(() => tm.worker(input as never), isInvalid(field), JSON.stringify(input));
    }
  });

  test('a bad job in a batch writes none of the batch', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await tm.listQueues(); // the queue definition has landed
    const before = await snapshot(tm);
    await assert.rejects(
      tm.addJobs([
        { queue: 'q' },
        { queue: 'q', idempotencyKey: { key: 'k', ttlSeconds: 1 } },
        { queue: 'q', priority: 'high' as never },
      ]),
      isInvalid('jobs[2].priority'),
    );
    await assert.rejects(tm.addJobs('not an array' as never), isInvalid('jobs'));
    await assert.rejects(
      tm.addJob({ queue: 'q', runAt: new Date(), delaySeconds: 1 }),
      isInvalid('delaySeconds'),
    );
    await assert.rejects(tm.addJob({ queue: 'q', unique: 7 as never }), isInvalid('unique'));
    await assert.rejects(tm.addJob({ queue: 'q', uniqueFor: 0 }), isInvalid('uniqueFor'));
    await assert.rejects(tm.addJob({ queue: 'q', expireInSeconds: 0 }), isInvalid('expireInSeconds'));
    await assert.rejects(
      tm.addJob({ queue: 'q', idempotencyKey: { key: 'k', ttlSeconds: 0 } }),
      isInvalid('idempotencyKey.ttlSeconds'),
    );
    assert.deepEqual(await snapshot(tm), before);
  });

  test('a closed engine refuses calls with DriverClosedError', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await tm.close();
    await assert.rejects(
      tm.addJob({ queue: 'q' }),
      (e: unknown) => (e as { code?: string }).code === 'CLOSED',
    );
    assert.throws(
      () => tm.createQueue({ name: 'r' }),
      (e: unknown) => (e as { code?: string }).code === 'CLOSED',
    );
  });
});
