import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { RETENTION_TURN, retentionTurn } from '../../src/maintenance/retention-sweep/turn.js';
import { sweepInputs } from '../../src/maintenance/sweeps.js';
import { runTick, tickInputs } from '../../src/maintenance/tick/tick.js';
import { UNIQUE_LOCK_TURN, uniqueLockTurn } from '../../src/maintenance/unique-lock-sweep/turn.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';
import { countRows } from '../support/jobs.js';

const SWEEP = { intervalSeconds: 3_600, batchSize: 100 };

/** The row a turn left, as if the database's clock had since stepped back a day. */
async function lastRunTomorrow(tm: Tidemark, name: string): Promise<void> {
  await rawQuery(
    tm,
    `insert into "${tm.schema}".maintenance (name, last_run_at) values ($1, now() + interval '1 day')
     on conflict (name) do update set last_run_at = excluded.last_run_at`,
    [name],
  );
}

async function lastRunIsPast(tm: Tidemark, name: string): Promise<boolean> {
  const [row] = await rawQuery<{ past: boolean }>(
    tm,
    `select last_run_at <= clock_timestamp() as past from "${tm.schema}".maintenance where name = $1`,
    [name],
  );
  return row.past;
}

describeEachDriver('maintenance turns after the clock steps back', ({ open }) => {
  test('a last tick in the future does not block the tick: stalled jobs are recovered', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const stalled = await insertJob(tm, { queue: 'q', status: 'active' });
    await lastRunTomorrow(tm, 'tick');
    await runTick(tickInputs(engineOf(tm)), 5);
    const job = await tm.getJob(stalled);
    // Recovered to retry, then promoted by the same tick.
    assert.equal(job?.status, 'pending');
    assert.equal(job?.error?.name, 'StalledJobError');
    assert.ok(await lastRunIsPast(tm, 'tick'));
    // The turn is taken again: the next node within the interval still finds it taken.
    assert.equal(await engineOf(tm).storage.maintenance.takeTurn('tick', 4), false);
  });

  test('a last sweep in the future does not block the retention and unique-lock sweeps', async () => {
    const tm = await open({ logger: silentLogger });
    await insertJob(tm, { queue: 'q', status: 'completed', purgeAfter: -60 });
    await insertJob(tm, { queue: 'q', status: 'completed', pins: [{ expiresIn: -60 }] });
    await lastRunTomorrow(tm, RETENTION_TURN);
    await lastRunTomorrow(tm, UNIQUE_LOCK_TURN);
    await uniqueLockTurn(sweepInputs(engineOf(tm), 'unique-lock sweep'), SWEEP);
    assert.equal(await countRows(tm, 'unique_locks'), 0);
    await retentionTurn(sweepInputs(engineOf(tm), 'sweep'), SWEEP);
    assert.equal(await countRows(tm, 'jobs', 'purge_after is not null'), 0);
    assert.equal(await countRows(tm, 'jobs'), 1);
    for (const name of [RETENTION_TURN, UNIQUE_LOCK_TURN]) {
      assert.ok(await lastRunIsPast(tm, name), name);
      assert.equal(await engineOf(tm).storage.maintenance.takeTurn(name, SWEEP.intervalSeconds), false, name);
    }
  });
});
