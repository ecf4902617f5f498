import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { silentLogger, Tidemark } from '../../src/index.js';
import { PG_URL, rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { seedEmbeddedFolder } from '../support/pglite-boot.js';
import { waitFor } from '../support/wait-for.js';
import { findInconsistencies, sqlOf } from './support/consistency.js';
import { adminClient, dropFaultSchema, faultSchema } from './support/pg.js';
import { startFixture } from './support/processes.js';

/**
 * `trees` due trees of one to three jobs (a root, a child, a grandchild), every job with two
 * checkpoints, a consumed and a pending signal, a schedule fire and a lapsed unique lock;
 * returns each tree's ids.
 */
async function fillTrees(tm: Tidemark, trees: number): Promise<string[][]> {
  const s = `"${tm.schema}"`;
  const job = (
    parent: string,
  ) => `insert into ${s}.jobs (queue, status, retention, finished_at, purge_after, parent_id, root_id, parent_step)
    ${parent}
    returning id`;
  const finished = `'completed', '{"completed": 3600}'::jsonb, now() - interval '2 hours', now() - interval '1 hour'`;
  await rawQuery(tm, job(`select 'q', ${finished}, null, null, null from generate_series(1, $1::int)`), [
    trees,
  ]);
  for (const depth of [1, 2]) {
    // Every third tree has no member, every third one member, the rest two (a chain).
    await rawQuery(
      tm,
      job(`select 'q', ${finished}, p.id, coalesce(p.root_id, p.id), 'child#1'
             from ${s}.jobs p
            where (case when p.root_id is null then 0 else 1 end) = $1::int - 1
              and coalesce(p.root_id, p.id) % 3 >= $1::int`),
      [depth],
    );
  }
  await rawQuery(
    tm,
    `insert into ${s}.checkpoints (job_id, name) select id, n from ${s}.jobs, unnest(array['a', 'b']) n`,
  );
  await rawQuery(
    tm,
    `insert into ${s}.signals (job_id, name, consumed_at, consumed_by, purge_after)
     select id, 'go', now() - interval '90 minutes', 'wait:go#1', now() + interval '1 hour' from ${s}.jobs
     union all select id, 'go', null, null, null from ${s}.jobs`,
  );
  await rawQuery(
    tm,
    `insert into ${s}.schedule_fires (schedule_name, fire_at, job_id) select 'nightly', now() - id * interval '1 s', id from ${s}.jobs`,
  );
  await rawQuery(
    tm,
    `insert into ${s}.unique_locks (scope, job_id, expires_at) select 'k' || id, id, now() - interval '1 minute' from ${s}.jobs`,
  );
  const rows = await rawQuery<{ ids: string[] }>(
    tm,
    `select array_agg(id::text order by id) as ids from ${s}.jobs group by coalesce(root_id, id)`,
  );
  return rows.map((r) => r.ids);
}

/** Trees of which some but not all jobs are gone. */
async function halfDeleted(tm: Tidemark, trees: string[][]): Promise<string[][]> {
  const rows = await rawQuery<{ id: string }>(tm, `select id::text as id from "${tm.schema}".jobs`);
  const present = new Set(rows.map((r) => r.id));
  return trees.filter((tree) => {
    const kept = tree.filter((id) => present.has(id)).length;
    return kept > 0 && kept < tree.length;
  });
}

/** How many jobs the schema holds. */
async function jobCount(tm: Tidemark): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
  return row.n;
}

/** Some trees are gone and some are left: the sweep was stopped part way. */
async function partlySwept(tm: Tidemark, trees: string[][]): Promise<boolean> {
  const n = await jobCount(tm);
  const all = trees.reduce((sum, tree) => sum + tree.length, 0);
  return n > 0 && n < all;
}

/**
 * Start the sweeper and SIGKILL it: once `{ sweeping }` sees a batch of its deletes committed
 * (the sweep is under way, its next statement likely in flight), or (`{ batch }`) as soon as
 * its archive hook has printed that many `batch …` lines: inside that batch's open
 * transaction, after earlier batches committed.
 */
async function killSweeper(
  env: Record<string, string>,
  when: { sweeping: Tidemark } | { batch: number },
): Promise<void> {
  const before = 'sweeping' in when ? await jobCount(when.sweeping) : 0;
  const sweeper = startFixture('sweeper', env);
  await sweeper.line((l) => l === 'ready');
  if ('sweeping' in when) {
    const tm = when.sweeping;
    if (before > 0)
      await waitFor('a batch of the sweep to commit', async () => (await jobCount(tm)) < before, {
        intervalMs: 2,
      });
  } else {
    let seen = 0;
    await sweeper.line((l) => l.startsWith('batch ') && ++seen === when.batch);
  }
  sweeper.child.kill('SIGKILL');
  const exit = await sweeper.exited;
  assert.equal(exit.signal, 'SIGKILL', sweeper.stderr());
}

describe('a sweeping process killed in the middle of a batch', () => {
  if (TEST_DRIVERS.includes('pg')) {
    for (const archive of [false, true]) {
      test(`PostgreSQL${archive ? ', each batch through an archive hook' : ''}: no orphan and no half-deleted tree after each kill`, async () => {
        const schema = faultSchema();
        const admin = await adminClient('sweep_kill');
        const tm = await Tidemark.open({ database: PG_URL, schema, logger: silentLogger });
        try {
          const trees = await fillTrees(tm, 600);
          const env = {
            TM_FAULTS_DATABASE: PG_URL,
            TM_FAULTS_SCHEMA: schema,
            TM_FAULTS_ARCHIVE: archive ? '1' : '0',
          };
          let kills = 0;
          let interrupted = 0;
          // Without a hook, kills once the sweep is under way; with one, inside a batch.
          const kill = archive
            ? [{ batch: 2 }, { batch: 3 }, { batch: 2 }]
            : [1, 2, 3].map(() => ({ sweeping: tm }));
          for (const when of kill) {
            await killSweeper(env, when);
            kills++;
            // A killed client's backend may still be finishing its statement; it commits or rolls back whole.
            await new Promise((resolve) => setTimeout(resolve, 100));
            assert.deepEqual(await findInconsistencies(sqlOf(tm), schema), [], `after kill ${kills}`);
            assert.deepEqual(await halfDeleted(tm, trees), [], `after kill ${kills}`);
            if (await partlySwept(tm, trees)) interrupted++;
          }
          assert.ok(interrupted > 0, 'at least one kill landed while the sweep was under way');
          await tm.sweep();
          assert.deepEqual(await findInconsistencies(sqlOf(tm), schema), []);
          assert.equal(await jobCount(tm), 0, 'what the kills interrupted, the next sweep finished');
        } finally {
          await tm.close();
          await dropFaultSchema(admin, schema);
          await admin.end();
        }
      });
    }
  }

  if (TEST_DRIVERS.includes('pglite')) {
    const dirs: string[] = [];
    after(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });
    test('embedded PGlite, inside a batch: reopening the folder finds no orphan and no half-deleted tree', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tidemark-sweep-kill-'));
      dirs.push(dir);
      const folder = join(dir, 'db');
      await seedEmbeddedFolder(folder);
      let tm = await Tidemark.open({ database: folder, logger: silentLogger });
      const trees = await fillTrees(tm, 600);
      await tm.close();
      await killSweeper({ TM_FAULTS_DATABASE: folder, TM_FAULTS_ARCHIVE: '1' }, { batch: 3 });
      tm = await Tidemark.open({ database: folder, logger: silentLogger });
      try {
        assert.deepEqual(await findInconsistencies(sqlOf(tm), tm.schema), []);
        assert.deepEqual(await halfDeleted(tm, trees), []);
        assert.ok(await partlySwept(tm, trees), 'the kill landed while the sweep was under way');
      } finally {
        await tm.close();
      }
    });
  }
});
