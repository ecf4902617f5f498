import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { engineOf } from '../../src/engine-handle.js';
import {
  type InvalidOptionError,
  JobStatus,
  Retention,
  silentLogger,
  type Tidemark,
} from '../../src/index.js';
import { jobOptions } from '../../src/intake/job-options.js';
import { PG_URL, rawQuery } from '../support/databases.js';
import { describeEachDriver, describePostgresOnly } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';
import { sleep } from '../support/wait-for.js';

/** What add_job and add_jobs return, one row per job. */
interface Added {
  id: string;
  deduplicated: boolean;
}

/** A database error as both drivers give it: its SQLSTATE and the field it names. */
interface SqlError {
  code: string;
  column: string | undefined;
  message: string;
}

/** Call `<schema>.add_job(queue, data, options)` in a transaction of its own. */
async function addJobSql(tm: Tidemark, queue: string, data: unknown, options: unknown = {}): Promise<Added> {
  const [row] = await tm.transaction(async (tx) => {
    const { rows } = await tx.query<Added>(
      `select id::text as id, deduplicated from "${tm.schema}".add_job($1, $2::jsonb, $3::jsonb)`,
      [queue, JSON.stringify(data), JSON.stringify(options)],
    );
    return rows;
  });
  return row;
}

async function addJobsSql(tm: Tidemark, jobs: unknown): Promise<Added[]> {
  return tm.transaction(async (tx) => {
    const { rows } = await tx.query<Added>(
      `select id::text as id, deduplicated from "${tm.schema}".add_jobs($1::jsonb)`,
      [JSON.stringify(jobs)],
    );
    return rows;
  });
}

/** The error a call refuses with; fails when it succeeds. */
async function refusal(call: Promise<unknown>): Promise<SqlError> {
  try {
    await call;
  } catch (error) {
    return error as SqlError;
  }
  assert.fail('the call was refused');
}

/**
 * A job row as every column holds it, but for what differs between two jobs by nature (id,
 * queue, the moments) and with the moments kept as distances from the job's creation.
 */
async function comparableRow(tm: Tidemark, id: string): Promise<Record<string, unknown>> {
  const [row] = await rawQuery<{ row: Record<string, unknown> }>(
    tm,
    `select to_jsonb(j) - 'id' - 'queue' - 'created_at' - 'run_at' - 'expire_at'
              || jsonb_build_object(
                   'run_at', extract(epoch from j.run_at)::float8,
                   'run_after', extract(epoch from j.run_at - j.created_at)::float8,
                   'expire_after', extract(epoch from j.expire_at - j.run_at)::float8,
                   'locks', (select jsonb_agg(extract(epoch from l.expires_at - l.created_at)::float8)
                               from "${tm.schema}".unique_locks l where l.job_id = j.id)) as row
       from "${tm.schema}".jobs j where j.id = $1`,
    [id],
  );
  assert.ok(row, `job ${id} is stored`);
  return row.row;
}

/** Two queues defined alike: one fed by SQL, the other by tm.addJob. */
const TWIN = {
  maxAttempts: 5,
  keys: { concurrency: { default: 1, tiers: { pro: 2 } } },
  version: 'v7',
};

/** Option sets each path is given in turn; data differs per set so no key is shared. */
const OPTION_SETS: Record<string, unknown>[] = [
  {},
  {
    priority: 5,
    maxAttempts: 7,
    delaySeconds: 30,
    expireInSeconds: 90,
    tags: ['b', 'a', 'b'],
    key: 'tenant:1',
    tier: 'pro',
    retention: { ttlSeconds: 60, statuses: ['failed'] },
  },
  { runAt: '2031-05-06T07:08:09.250Z', unique: 'order-1', retention: false },
  { unique: true, retention: { completed: 0, failed: 11, consumedSignals: 3 } },
  { idempotencyKey: { key: 'k', ttlSeconds: 120 }, expireInSeconds: 5 },
  { uniqueFor: 45 },
  { debounce: { key: 'd', seconds: 30, maxWaitSeconds: 20 } },
  { debounce: { key: 'l', seconds: 30, mode: 'leading' } },
  { throttle: { key: 't', seconds: 30 }, delaySeconds: 4 },
];

/**
 * Bad requests, each refused by tm.addJob with an InvalidOptionError naming a field: add_job
 * must refuse it naming the same field (TM001), and neither may write anything.
 */
const BAD: Record<string, unknown>[] = [
  { priority: 1.5 },
  { priority: '3' },
  { maxAttempts: 0 },
  { delaySeconds: -1 },
  { delaySeconds: 3_153_600_001 },
  { expireInSeconds: 0 },
  { runAt: 'soon' },
  { runAt: 'now' },
  { runAt: '2031-13-45T00:00:00Z' },
  { runAt: 5 },
  { idempotencyKey: 'k' },
  { idempotencyKey: { key: 'k' } },
  { idempotencyKey: { key: 'k', ttlSeconds: 1, scope: 'x' } },
  { idempotencyKey: { key: '', ttlSeconds: 1 } },
  { uniqueFor: 'a minute' },
  { unique: '' },
  { unique: 1 },
  { retention: 'forever' },
  { retention: { completed: -1 } },
  { retention: { completed: 1.5 } },
  { retention: { completed: 1, ttlSeconds: 3 } },
  { retention: { weeks: 1 } },
  { retention: { statuses: ['failed'] } },
  { retention: { ttlSeconds: 5, statuses: ['done'] } },
  { retention: { ttlSeconds: 5, statuses: 'failed' } },
  { debounce: { key: 'k' } },
  { debounce: { key: 'k', seconds: 1, mode: 'lazy' } },
  { debounce: { key: 'k', seconds: 1, every: 2 } },
  { throttle: { key: 'k', seconds: 0 } },
  { throttle: { key: 'k', seconds: 1, mode: 'leading' } },
  { key: '' },
  { key: 'k'.repeat(513) },
  // 300 characters, 600 UTF-16 code units: over the limit as JavaScript counts.
  { key: '\u{1F600}'.repeat(300) },
  { tier: 7 },
  { tier: 'gold' },
  { tags: [] },
  { tags: ['ok', ''] },
  { tags: 'a' },
  { tags: ['x'.repeat(101)] },
  { colour: 'blue' },
  { runAt: '2031-01-01T00:00:00Z', delaySeconds: 1 },
  { idempotencyKey: { key: 'k', ttlSeconds: 1 }, uniqueFor: 5 },
  { unique: true, uniqueFor: 5 },
  { debounce: { key: 'k', seconds: 1 }, runAt: '2031-01-01T00:00:00Z' },
  { debounce: { key: 'k', seconds: 1 }, delaySeconds: 1 },
  { throttle: { key: 'k', seconds: 1 }, unique: false },
  { debounce: { key: 'k', seconds: 1, mode: 'leading', maxWaitSeconds: 3 } },
  { dependsOn: [] },
  { dependsOn: '1' },
  { dependsOn: ['1', 0] },
  { dependsOn: ['01'] },
  { dependsOn: [1.5] },
  { dependsOn: ['9223372036854775808'] },
  { dependsOn: ['999999'] },
  { dependsOn: ['1'], onDependencyFailure: 'later' },
  { onDependencyFailure: 'run' },
  { dependsOn: ['1'], throttle: { key: 'k', seconds: 1 } },
];

async function openTwins(open: (options?: object) => Promise<Tidemark>): Promise<Tidemark> {
  // An engine policy other than the stock one: a queue without its own policy freezes it.
  const tm = await open({ logger: silentLogger, retention: Retention.TIGHT });
  tm.createQueue({ name: 'by-sql', ...TWIN });
  tm.createQueue({ name: 'by-api', ...TWIN });
  return tm;
}

describeEachDriver('add_job and add_jobs in SQL', ({ open }) => {
  test('a job added in SQL is the row tm.addJob writes, to every column, its queue and engine policy applied', async () => {
    const tm = await openTwins(open);
    for (const [n, options] of OPTION_SETS.entries()) {
      const data = { set: n, nested: { z: [1, 2.5, 'x'], a: null } };
      const bySql = await addJobSql(tm, 'by-sql', data, options);
      const byApi = await tm.addJob({ queue: 'by-api', data, ...options });
      assert.equal(bySql.deduplicated, false, `set ${n}`);
      // A run time given is the same moment; one computed is the same distance from the add.
      const moment = options.runAt === undefined ? 'run_at' : 'run_after';
      const [sqlRow, apiRow] = [await comparableRow(tm, bySql.id), await comparableRow(tm, byApi.id)];
      delete sqlRow[moment];
      delete apiRow[moment];
      assert.deepEqual(sqlRow, apiRow, `set ${n}`);
    }
    const [plain] = await rawQuery<{ retention: unknown; version: string }>(
      tm,
      `select retention, version from "${tm.schema}".jobs where queue = 'by-sql' order by id limit 1`,
    );
    assert.deepEqual(plain, { retention: { ...Retention.TIGHT }, version: 'v7' });
  });

  test('unique, idempotency and fold keys are shared with tm.addJob: each deduplicates the other', async () => {
    const tm = await openTwins(open);
    // The same data, its keys in another order and a number written another way.
    const first = await addJobSql(tm, 'by-sql', { b: [1, { d: 'é', c: true }], a: 1.5 }, { unique: true });
    const again = await tm.addJob({
      queue: 'by-sql',
      data: { a: 1.5, b: [1, { c: true, d: 'é' }] },
      unique: true,
    });
    assert.deepEqual(again, { id: first.id, deduplicated: true });
    const [bySql] = await rawQuery<Added>(
      tm,
      `select id::text as id from "${tm.schema}".add_job('by-sql', '[1.50, 2e1]', '{"unique": true}')`,
    );
    assert.equal((await tm.addJob({ queue: 'by-sql', data: [1.5, 20], unique: true })).id, bySql.id);
    const locked = await tm.addJob({ queue: 'by-sql', idempotencyKey: { key: 'order-9', ttlSeconds: 60 } });
    assert.deepEqual(
      await addJobSql(tm, 'by-sql', null, { idempotencyKey: { key: 'order-9', ttlSeconds: 60 } }),
      {
        id: locked.id,
        deduplicated: true,
      },
    );
    const sameData = await addJobSql(tm, 'by-sql', { n: 1 }, { uniqueFor: 60 });
    assert.equal((await tm.addJob({ queue: 'by-sql', data: { n: 1 }, uniqueFor: 60 })).id, sameData.id);
    const debounced = await tm.addJob({ queue: 'by-sql', data: 1, debounce: { key: 'd', seconds: 60 } });
    assert.deepEqual(await addJobSql(tm, 'by-sql', 2, { debounce: { key: 'd', seconds: 60 } }), {
      id: debounced.id,
      deduplicated: true,
    });
    // A trailing debounce hands the waiting job the latest data.
    assert.equal((await tm.getJob(debounced.id))?.data, 2);
    const throttled = await addJobSql(tm, 'by-sql', 1, { throttle: { key: 't', seconds: 60 } });
    const folded = await tm.addJob({ queue: 'by-sql', data: 2, throttle: { key: 't', seconds: 60 } });
    assert.deepEqual(folded, { id: throttled.id, deduplicated: true, throttled: true });
  });

  test('dependsOn: a job added in SQL waits for its dependencies, and settles, as one added by tm.addJob', async () => {
    const tm = await openTwins(open);
    const first = await tm.addJob({ queue: 'by-api', data: 'first' });
    const cancelled = await tm.addJob({ queue: 'by-api', data: 'cancelled' });
    await tm.cancelJob(cancelled.id);
    const state = async (id: string) => {
      const [row] = await rawQuery(
        tm,
        `select status, dependencies_left, on_dependency_failure, wait ->> 'kind' as wait,
                run_at = 'infinity' as parked, error ->> 'message' as error,
                (select count(*)::int from "${tm.schema}".job_dependencies e where e.job_id = j.id) as edges
           from "${tm.schema}".jobs j where id = $1`,
        [id],
      );
      return row;
    };
    const pairs = [
      [
        await addJobSql(tm, 'by-sql', null, { dependsOn: [first.id, Number(first.id)] }),
        await tm.addJob({ queue: 'by-api', dependsOn: [first.id, Number(first.id)] }),
      ],
      [
        await addJobSql(tm, 'by-sql', null, { dependsOn: [cancelled.id], onDependencyFailure: 'cancel' }),
        await tm.addJob({ queue: 'by-api', dependsOn: [cancelled.id], onDependencyFailure: 'cancel' }),
      ],
      [
        await addJobSql(tm, 'by-sql', null, {
          dependsOn: [first.id, cancelled.id],
          onDependencyFailure: 'run',
        }),
        await tm.addJob({ queue: 'by-api', dependsOn: [first.id, cancelled.id], onDependencyFailure: 'run' }),
      ],
    ];
    const expected = [
      {
        status: 'waiting',
        dependencies_left: 1,
        on_dependency_failure: 'fail',
        wait: 'dependencies',
        parked: true,
      },
      {
        status: 'cancelled',
        dependencies_left: 0,
        on_dependency_failure: 'cancel',
        wait: null,
        parked: false,
      },
      {
        status: 'waiting',
        dependencies_left: 1,
        on_dependency_failure: 'run',
        wait: 'dependencies',
        parked: true,
      },
    ];
    for (const [n, [bySql, byApi]] of pairs.entries()) {
      const sqlState = await state(bySql.id);
      assert.deepEqual(sqlState, await state(byApi.id), `pair ${n}`);
      assert.deepEqual(
        { ...sqlState, error: undefined, edges: undefined },
        { ...expected[n], error: undefined, edges: undefined },
      );
    }
    // The dependency ends cancelled: the default policy fails its waiting dependents at once.
    await tm.cancelJob(first.id);
    for (const [bySql, byApi] of pairs) assert.deepEqual(await state(bySql.id), await state(byApi.id));
    assert.equal((await state(pairs[0][0].id)).status, 'failed');
    assert.equal((await state(pairs[2][0].id)).status, 'pending');
  });

  test('add_jobs returns the ids in the order given, with what was deduplicated', async () => {
    const tm = await openTwins(open);
    const added = await addJobsSql(tm, [
      { queue: 'by-sql', data: 1, unique: 'u' },
      { queue: 'by-api', data: 2 },
      { queue: 'by-sql', data: 3, unique: 'u' },
      { queue: 'by-sql', data: 4, idempotencyKey: { key: 'i', ttlSeconds: 60 } },
      { queue: 'by-sql', data: 5, idempotencyKey: { key: 'i', ttlSeconds: 60 } },
    ]);
    assert.deepEqual(
      added.map((row) => row.deduplicated),
      [false, false, true, false, true],
    );
    assert.equal(added[2].id, added[0].id);
    assert.equal(added[4].id, added[3].id);
    const jobs = await Promise.all([0, 1, 3].map((i) => tm.getJob(added[i].id)));
    assert.deepEqual(
      jobs.map((job) => [job?.queue, job?.data]),
      [
        ['by-sql', 1],
        ['by-api', 2],
        ['by-sql', 4],
      ],
    );
    assert.deepEqual(await addJobsSql(tm, []), []);
  });

  test('every bad request is refused naming the field tm.addJob names (TM001), nothing written by either', async () => {
    const tm = await openTwins(open);
    for (const options of BAD) {
      const label = JSON.stringify(options);
      const api = await refusal(tm.addJob({ queue: 'by-sql', data: null, ...options } as never));
      const field = (api as unknown as InvalidOptionError).field;
      assert.ok(field, `tm.addJob refuses ${label} naming a field`);
      const sql = await refusal(addJobSql(tm, 'by-sql', null, options));
      assert.deepEqual([sql.code, sql.column], ['TM001', field], label);
      assert.match(
        sql.message,
        new RegExp(`^invalid option '${field.replace(/[[\].]/g, '\\$&')}': expected `),
        label,
      );
      // In a batch the field is the job's: jobs[1].<field>.
      const batch = await refusal(
        addJobsSql(tm, [
          { queue: 'by-sql', data: 0 },
          { queue: 'by-sql', data: null, ...options },
        ]),
      );
      assert.deepEqual([batch.code, batch.column], ['TM001', `jobs[1].${field}`], label);
    }
    assert.equal(await countRows(tm, 'jobs'), 0);
    assert.equal(await countRows(tm, 'unique_locks'), 0);
  });

  test('each of tm.addJob’s options is known to add_job: a value of the wrong type is refused naming that option', async () => {
    const tm = await openTwins(open);
    const options = Object.keys(jobOptions.properties).filter((name) => name !== 'queue' && name !== 'data');
    for (const option of options) {
      const sql = await refusal(addJobSql(tm, 'by-sql', null, { [option]: [[]] }));
      assert.equal(sql.code, 'TM001', option);
      assert.ok(sql.column?.startsWith(option), `${option}: ${sql.message}`);
      assert.doesNotMatch(sql.message, /known options \(queue/, option);
    }
    assert.equal(await countRows(tm, 'jobs'), 0);
  });

  test('an unknown queue (TM002), misplaced arguments and oversized data are refused by name, nothing written', async () => {
    const tm = await openTwins(open);
    const cases: { call: () => Promise<unknown>; code: string; column: string; says: RegExp }[] = [
      {
        call: () => addJobSql(tm, 'nowhere', null),
        code: 'TM002',
        column: 'queue',
        says: /queue 'nowhere' does not exist/,
      },
      {
        call: () => addJobsSql(tm, [{ queue: 'by-sql' }, { queue: 'nowhere' }]),
        code: 'TM002',
        column: 'jobs[1].queue',
        says: /queue 'nowhere' does not exist/,
      },
      {
        call: () => addJobSql(tm, 'by-sql', null, { queue: 'by-api' }),
        code: 'TM001',
        column: 'queue',
        says: /first two/,
      },
      { call: () => addJobSql(tm, 'by-sql', null, [1]), code: 'TM001', column: 'options', says: /an object/ },
      {
        call: () => addJobsSql(tm, { queue: 'by-sql' }),
        code: 'TM001',
        column: 'jobs',
        says: /an array of jobs/,
      },
      {
        call: () => addJobsSql(tm, [{ queue: 'by-sql' }, 7]),
        code: 'TM001',
        column: 'jobs[1]',
        says: /an object/,
      },
      { call: () => addJobsSql(tm, [{ data: 1 }]), code: 'TM001', column: 'queue', says: /non-empty string/ },
      {
        call: () => addJobSql(tm, 'by-sql', JSON.parse(`${'['.repeat(201)}${']'.repeat(201)}`)),
        code: 'TM001',
        column: 'data',
        says: /nested at most 200 levels/,
      },
      {
        call: () => addJobSql(tm, 'by-sql', 'x'.repeat(1_048_577)),
        code: 'TM001',
        column: 'data',
        says: /at most 1048576 bytes/,
      },
    ];
    for (const { call, code, column, says } of cases) {
      const sql = await refusal(call());
      assert.deepEqual([sql.code, sql.column], [code, column], sql.message);
      assert.match(sql.message, says);
    }
    // The deepest data tm.addJob takes, add_job takes too.
    await addJobSql(tm, 'by-sql', JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`));
    assert.equal(await countRows(tm, 'jobs'), 1);
  });

  test('a rolled-back transaction adds nothing; a failed call in a savepoint leaves the transaction usable', async () => {
    const tm = await openTwins(open);
    await assert.rejects(
      tm.transaction(async (tx) => {
        await tx.query(`select * from "${tm.schema}".add_job('by-sql', '{"n": 1}')`);
        await tx.query(`select * from "${tm.schema}".add_jobs('[{"queue": "by-sql"}, {"queue": "by-api"}]')`);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(await countRows(tm, 'jobs'), 0);
    await tm.transaction(async (tx) => {
      await tx.query(`select * from "${tm.schema}".add_job('by-sql', '{"n": 2}')`);
      await tx.query('savepoint before_bad');
      await assert.rejects(
        tx.query(`select * from "${tm.schema}".add_jobs('[{"queue": "by-sql"}, {"queue": "nowhere"}]')`),
      );
      await tx.query('rollback to savepoint before_bad');
    });
    assert.equal(await countRows(tm, 'jobs'), 1);
  });

  test('a trigger on a user table adds a job per row, in the writing transaction', async () => {
    const tm = await openTwins(open);
    const s = `"${tm.schema}"`;
    await rawQuery(tm, `create table ${s}.shop_orders (id int primary key, customer text not null)`);
    await rawQuery(
      tm,
      `create function ${s}.shop_order_added() returns trigger language plpgsql as $$
       begin
         perform ${s}.add_job('by-sql', jsonb_build_object('order', new.id),
                              jsonb_strip_nulls(jsonb_build_object('key', 'customer:' || new.customer,
                                                                 'tier', nullif(tg_argv[0], ''))));
         return new;
       end $$`,
    );
    await rawQuery(
      tm,
      `create trigger shop_order_added after insert on ${s}.shop_orders for each row execute function ${s}.shop_order_added('')`,
    );
    await rawQuery(tm, `insert into ${s}.shop_orders values (1, 'acme'), (2, 'globex')`);
    const jobs = await rawQuery<{ data: unknown; key: string }>(
      tm,
      `select data, key from ${s}.jobs order by id`,
    );
    assert.deepEqual(jobs, [
      { data: { order: 1 }, key: 'customer:acme' },
      { data: { order: 2 }, key: 'customer:globex' },
    ]);
    // Rolled back with the row that fired it.
    await assert.rejects(
      tm.transaction(async (tx) => {
        await tx.query(`insert into ${s}.shop_orders values (3, 'initech')`);
        throw new Error('order refused');
      }),
    );
    // A trigger whose job is refused refuses the row: neither is written.
    await rawQuery(tm, `drop trigger shop_order_added on ${s}.shop_orders`);
    await rawQuery(
      tm,
      `create trigger shop_order_added after insert on ${s}.shop_orders for each row execute function ${s}.shop_order_added('gold')`,
    );
    const refused = await refusal(rawQuery(tm, `insert into ${s}.shop_orders values (4, 'umbrella')`));
    assert.deepEqual([refused.code, refused.column], ['TM001', 'tier']);
    assert.equal(await countRows(tm, 'shop_orders'), 2);
    assert.equal(await countRows(tm, 'jobs'), 2);
  });

  test('an idle worker wakes for a job added in SQL long before its poll', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: (job) => job.data });
    // The tick also nudges due queues: keep it out of the way.
    const worker = fastWorker(tm, { pollIntervalSeconds: 3_600, tickIntervalSeconds: 86_400 });
    await worker.start();
    const warmup = await addJobSql(tm, 'q', 'warm');
    await waitForStatus(tm, warmup.id, JobStatus.COMPLETED, 10_000);
    // Asleep now, with nothing to claim: only the notification at commit can wake it.
    await sleep(200);
    await engineOf(tm).registry.flush();
    const [added] = await rawQuery<Added>(
      tm,
      `select id::text as id from "${tm.schema}".add_job('q', '"woken"')`,
    );
    const done = await waitForStatus(tm, added.id, JobStatus.COMPLETED, 10_000);
    assert.equal(done.output, 'woken');
    await worker.stop();
  });

  test('a queue stored without its definer’s engine policy freezes the stock policy', async () => {
    const tm = await openTwins(open);
    await engineOf(tm).registry.flush();
    await rawQuery(tm, `update "${tm.schema}".queues set engine_retention = null where name = 'by-sql'`);
    const { id } = await addJobSql(tm, 'by-sql', null);
    assert.deepEqual((await tm.getJob(id))?.retention, { ...Retention.STOCK });
  });

  test('the SQL blocks of docs/sql-enqueue.md run as written, in order', async () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'sql-enqueue.md'), 'utf8');
    const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1]);
    assert.ok(blocks.length >= 3, 'the page has its examples');
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'emails' });
    await tm.transaction(async (tx) => {
      // The page's names (its tables, and Tidemark's schema as `tidemark`) in this test's schema.
      await tx.query(`set local search_path = "${tm.schema}"`);
      for (const block of blocks) {
        // Statements are parted by a blank line; a function's body has none.
        for (const statement of block.split(/;\s*\n\s*\n/)) {
          await tx.query(statement.replaceAll('tidemark.', `"${tm.schema}".`));
        }
      }
    });
    const jobs = await rawQuery<{ data: { to: string }; key: string | null }>(
      tm,
      `select data, key from "${tm.schema}".jobs order by id`,
    );
    assert.deepEqual(
      jobs.map((job) => [job.data.to, job.key]),
      [
        ['ada@example.com', null],
        ['grace@example.com', null],
        ['ada@example.com', null],
        ['alan@example.com', null],
        ['ada@example.com', 'customer:acme'],
      ],
    );
  });
});

describePostgresOnly('add_job in SQL from concurrent sessions', ({ open }) => {
  test('20 concurrent adds with one idempotency key, uniqueFor window, unique key or debounce key make one job', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await engineOf(tm).registry.flush();
    const pool = new pg.Pool({ connectionString: PG_URL, max: 10 });
    try {
      const kinds: Record<string, unknown>[] = [
        { idempotencyKey: { key: 'one', ttlSeconds: 60 } },
        { uniqueFor: 60 },
        { unique: 'one' },
        { debounce: { key: 'one', seconds: 60 } },
      ];
      for (const options of kinds) {
        const calls = Array.from({ length: 20 }, () =>
          pool.query<Added>(
            `select id::text as id, deduplicated from "${tm.schema}".add_job('q', '{"n": 1}', $1)`,
            [JSON.stringify(options)],
          ),
        );
        const rows = (await Promise.all(calls)).map((result) => result.rows[0]);
        assert.equal(new Set(rows.map((row) => row.id)).size, 1, JSON.stringify(options));
        assert.equal(rows.filter((row) => !row.deduplicated).length, 1, JSON.stringify(options));
      }
      assert.equal(await countRows(tm, 'jobs'), kinds.length);
    } finally {
      await pool.end();
    }
  });
});
