import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { runCli } from '../support/cli.js';
import { PG_URL } from '../support/databases.js';
import { describePostgresOnly } from '../support/each-driver.js';
import { finishedJobs, statusesOf } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/** `tidemark <verb> --status <status> --queue q` on the test server; what it printed. */
async function bulkCommand(verb: string, status: string, schema: string): Promise<string> {
  const { code, io } = await runCli([
    verb,
    '--status',
    status,
    '--queue',
    'q',
    '--database',
    PG_URL,
    '--schema',
    schema,
  ]);
  assert.equal(code, 0, io.err());
  return io.out();
}

/**
 * Another session changes a job the bulk command has chosen and holds its row until the
 * command's write waits for it; the write must then see the row as it is after that change.
 */
describePostgresOnly('bulk commands check the filter again under the row lock', ({ open }) => {
  async function whileRowChanges(schema: string, change: string, id: string, run: () => Promise<void>) {
    const other = new pg.Client({ connectionString: PG_URL });
    await other.connect();
    try {
      await other.query('begin');
      const changed = await other.query(`update "${schema}".jobs set ${change} where id = $1::bigint`, [id]);
      assert.equal(changed.rowCount, 1);
      const command = run();
      await waitFor('the command to wait for the changed row', async () => {
        // Inside a transaction the activity view is read once; read it afresh on every poll.
        await other.query('select pg_stat_clear_snapshot()');
        const { rows } = await other.query(
          `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like $1`,
          [`%"${schema}".jobs%`],
        );
        return rows.length > 0 ? true : null;
      });
      await other.query('commit');
      await command;
    } finally {
      await other.end();
    }
  }

  test('tidemark retry --status failed leaves a job that completed after it was chosen', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [first, second] = await finishedJobs(tm, 'q', 2);
    let out = '';
    await whileRowChanges(tm.schema, `status = 'completed'`, second, async () => {
      out = await bulkCommand('retry', 'failed', tm.schema);
    });
    assert.match(out, /Retried 1 of 2 matching failed jobs of queue q\./);
    assert.match(out, /refused: 1 changed/);
    assert.match(
      out,
      new RegExp(`job ${second}: job ${second} changed after it was chosen \\(it is completed now\\)`),
    );
    assert.deepEqual(await statusesOf(tm, [first, second]), ['pending', 'completed']);
  });

  test('tidemark cancel --status pending leaves a job a worker claimed after it was chosen', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [first, second] = (await tm.addJobs([1, 2].map((i) => ({ queue: 'q', data: { i } })))).map(
      (r) => r.id,
    );
    let out = '';
    const claim = `status = 'active', attempts = 1, started_at = now(), locked_by = 'w', lock_token = gen_random_uuid(), locked_until = now() + interval '1 minute'`;
    await whileRowChanges(tm.schema, claim, second, async () => {
      out = await bulkCommand('cancel', 'pending', tm.schema);
    });
    assert.match(out, /Cancelled 1 of 2 matching pending jobs of queue q\./);
    assert.match(out, /refused: 1 changed/);
    assert.deepEqual(await statusesOf(tm, [first, second]), ['cancelled', 'active']);
  });
});
