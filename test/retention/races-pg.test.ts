import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import pg from 'pg';
import { JobInFlightError, type Tidemark } from '../../src/index.js';
import { dropSchema, openOn, PG_URL, rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { insertJob, insertTree, jobExists } from '../support/factory.js';

/**
 * Races that need a second connection, so PostgreSQL only (PGlite is one session: its
 * statements never interleave). A second client reopens a tree member inside an open
 * transaction, the way retryJob does, while retention or an explicit delete runs: the
 * reopened member must never be deleted, whichever commits first.
 */
if (TEST_DRIVERS.includes('pg')) {
  describe('retention races with a member being reopened [pg]', () => {
    const opened: Tidemark[] = [];
    const clients: pg.Client[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.end().catch(() => {});
      for (const tm of opened.splice(0)) {
        await tm.close();
        await dropSchema('pg', tm.schema);
      }
    });

    /** A due tree (a completed root and a failed child) and a client reopening the child, uncommitted. */
    async function setUp() {
      const tm = await openOn('pg');
      opened.push(tm);
      const [root, child] = await insertTree(tm, { status: 'completed', purgeAfter: -60, finishedAt: -120 }, [
        { status: 'failed', purgeAfter: -60, finishedAt: -120 },
      ]);
      const client = new pg.Client({ connectionString: PG_URL });
      clients.push(client);
      await client.connect();
      await client.query('begin');
      await client.query(
        `update "${tm.schema}".jobs set status = 'pending', finished_at = null, purge_after = null where id = $1`,
        [child],
      );
      return { tm, root, child, client };
    }

    /**
     * Run `operation` until it either settles or waits on the reopening client's row lock,
     * then commit the reopen and return the operation's outcome.
     */
    async function raceWithCommit<T>(tm: Tidemark, client: pg.Client, operation: Promise<T>) {
      let settled = false;
      const outcome = operation.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      void outcome.then(() => {
        settled = true;
      });
      const deadline = Date.now() + 15_000;
      while (!settled && Date.now() < deadline) {
        const [row] = await rawQuery<{ n: number }>(
          tm,
          `select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and state = 'active' and query like '%' || $1 || '%'`,
          [tm.schema],
        );
        if (row.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await client.query('commit');
      return outcome;
    }

    test('a sweep never deletes a member reopened while it runs (R1, R3)', async () => {
      const { tm, root, child, client } = await setUp();
      await raceWithCommit(tm, client, tm.sweep());
      assert.equal(await jobExists(tm, child), true, 'the reopened member was deleted');
      assert.equal(await jobExists(tm, root), true, 'its tree lost its top');
    });

    test('a manual purge never deletes a member reopened while it runs (R10)', async () => {
      const { tm, root, child, client } = await setUp();
      await raceWithCommit(tm, client, tm.removeJobs());
      assert.equal(await jobExists(tm, child), true, 'the reopened member was deleted');
      assert.equal(await jobExists(tm, root), true, 'its tree lost its top');
    });

    /**
     * A single job run again and finished again while a batch waits for its row lock, this
     * time with a child: the batch read it as a tree of one, so it must see the new finish
     * and keep the job (or the child would lose its top).
     */
    for (const [operation, run] of [
      ['sweep', (tm: Tidemark): Promise<unknown> => tm.sweep()],
      ['manual purge', (tm: Tidemark): Promise<unknown> => tm.removeJobs()],
    ] as const) {
      test(`a ${operation} never deletes a single job finished again, with a child, while it runs (R3)`, async () => {
        const tm = await openOn('pg');
        opened.push(tm);
        const due = { status: 'completed' as const, purgeAfter: -60, finishedAt: -120 };
        const [single, other] = [await insertJob(tm, due), await insertJob(tm, due)];
        const client = new pg.Client({ connectionString: PG_URL });
        clients.push(client);
        await client.connect();
        await client.query('begin');
        const s = `"${tm.schema}"`;
        await client.query(
          `update ${s}.jobs set finished_at = now() - interval '2 seconds', purge_after = now() - interval '1 second'
            where id = $1`,
          [single],
        );
        const [child] = (
          await client.query<{ id: string }>(
            `insert into ${s}.jobs (queue, status, data, parent_id, root_id, finished_at, purge_after)
             values ('default', 'completed', '{}', $1, $1, now() - interval '3 seconds', now() - interval '1 second')
             returning id::text as id`,
            [single],
          )
        ).rows;
        await raceWithCommit(tm, client, run(tm));
        assert.equal(await jobExists(tm, single), true, 'the job finished again was deleted');
        assert.equal(await jobExists(tm, child.id), true);
        assert.equal(await jobExists(tm, other), false, 'the batch deleted the other job');
      });
    }

    test('deleteWorkflowSubtree refuses a subtree whose member is reopened while it runs (R9)', async () => {
      const { tm, root, child, client } = await setUp();
      const outcome = await raceWithCommit(tm, client, tm.deleteWorkflowSubtree(root));
      assert.equal(outcome.ok, false, 'the delete went through');
      assert.ok(
        !outcome.ok && outcome.error instanceof JobInFlightError,
        String(!outcome.ok && outcome.error),
      );
      assert.equal(await jobExists(tm, child), true);
      assert.equal(await jobExists(tm, root), true);
    });
  });
}
