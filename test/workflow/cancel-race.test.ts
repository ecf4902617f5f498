import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger } from '../../src/index.js';
import { PG_URL, rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';
import { table } from './fixtures/helpers.js';

describeEachDriver('cancelling a tree while its members finish', ({ kind, open }) => {
  // Lock waits between sessions: PostgreSQL only (PGlite is one session).
  if (kind !== 'pg') return;

  test('cancelJob survives a deadlock with a finishing child (child row locked, then its parent)', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const parent = await tm.addJob({ queue: 'q' });
    const [child] = await engineOf(tm).storage.jobs.insertJobs(
      [
        {
          queue: 'q',
          dataText: 'null',
          priority: 0,
          max_attempts: 1,
          retention: {},
          parent_id: parent.id,
          root_id: parent.id,
        },
      ],
      engineOf(tm).insertDefaults,
    );
    const jobs = table(tm, 'jobs');
    // A child finishing locks its own row, then its parent's (the wake_parent trigger).
    const finishing = new pg.Client({ connectionString: PG_URL });
    await finishing.connect();
    try {
      await finishing.query('begin');
      await finishing.query(`update ${jobs} set run_at = run_at where id = $1`, [child.id]);
      const cancelled = tm.cancelJob(parent.id).then(
        (job) => ({ ok: true as const, job }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      await waitFor('cancelJob to wait for the child row', async () => {
        const [row] = await rawQuery<{ n: number }>(
          tm,
          `select count(*)::int as n from pg_stat_activity
            where wait_event_type = 'Lock' and query like $1`,
          [`%${tm.schema}%cancelled%`],
        );
        return row.n > 0;
      });
      await finishing.query(`update ${jobs} set run_at = run_at where id = $1`, [parent.id]).catch(() => {});
      await finishing.query('commit').catch(() => {});
      const outcome = await cancelled;
      assert.ok(outcome.ok, `cancelJob failed: ${outcome.ok ? '' : String(outcome.error)}`);
      assert.equal(outcome.job.status, 'cancelled');
      assert.equal((await tm.getJob(child.id))?.status, 'cancelled');
    } finally {
      await finishing.end();
    }
  });
});
