import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import type { AddJobInput, Tidemark } from '../../src/index.js';
import { type DriverKind, PG_URL, rawQuery, sharedPgliteInstance } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows } from '../support/jobs.js';

/** Jobs whose data holds `"boom": true` fail in the database, after the jobs before them. */
async function refuseBoom(tm: Tidemark): Promise<void> {
  const s = `"${tm.schema}"`;
  await rawQuery(
    tm,
    `create function ${s}.refuse_boom() returns trigger language plpgsql as $$
     begin
       if new.data @> '{"boom": true}' then raise exception 'boom refused'; end if;
       return new;
     end $$`,
  );
  await rawQuery(
    tm,
    `create trigger refuse_boom before insert on ${s}.jobs for each row execute function ${s}.refuse_boom()`,
  );
}

const HOUR = 3_600;

/** One job per kind of key (each takes its own statement or row), then one that fails. */
const KEYED: AddJobInput[] = [
  { queue: 'q', data: 'idem', idempotencyKey: { key: 'order-1', ttlSeconds: HOUR } },
  { queue: 'q', data: 'window', uniqueFor: HOUR },
  { queue: 'q', data: 'unique', unique: 'u-1' },
];
const FAILING: AddJobInput[] = [...KEYED, { queue: 'q', data: { boom: true } }];

/** The keys are free: the same keyed jobs are new jobs, not duplicates of a lost batch. */
async function assertKeysFree(tm: Tidemark): Promise<void> {
  const again = await tm.addJobs(KEYED);
  assert.deepEqual(
    again.map((r) => r.deduplicated),
    [false, false, false],
  );
}

/** Run `fn` inside a caller's transaction of this driver, committed when it returns. */
async function inCallerTransaction(kind: DriverKind, fn: (tx: pg.PoolClient | Transaction) => Promise<void>) {
  if (kind === 'pglite') {
    await (await sharedPgliteInstance()).transaction(fn);
    return;
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query('begin');
    await fn(client as pg.PoolClient);
    await client.query('commit');
  } finally {
    await client.end();
  }
}

describeEachDriver('addJobs is all or nothing', ({ kind, open }) => {
  test('a batch failing after its keyed jobs writes nothing and leaves their keys free', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await refuseBoom(tm);
    await assert.rejects(tm.addJobs(FAILING), /boom refused/);
    assert.equal(await countRows(tm, 'jobs'), 0);
    assert.equal(await countRows(tm, 'unique_locks'), 0);
    await assertKeysFree(tm);
  });

  test('with { tx }: nothing of the failed call is in the caller transaction, which goes on', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await tm.listQueues(); // stored before the transaction (PGlite is one session)
    await refuseBoom(tm);
    await inCallerTransaction(kind, async (tx) => {
      await tm.addJob({ queue: 'q', data: 'before' }, { tx });
      await assert.rejects(tm.addJobs(FAILING, { tx }), /boom refused/);
      await tm.addJob({ queue: 'q', data: 'after' }, { tx });
    });
    const rows = await rawQuery<{ data: unknown }>(tm, `select data from "${tm.schema}".jobs order by id`);
    assert.deepEqual(
      rows.map((r) => r.data),
      ['before', 'after'],
    );
    assert.equal(await countRows(tm, 'unique_locks'), 0);
    await assertKeysFree(tm);
  });

  test('a batch that succeeds still deduplicates within itself and against earlier jobs', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const first = await tm.addJobs([...KEYED, { queue: 'q', data: 'plain' }]);
    const second = await tm.addJobs([
      { queue: 'q', data: 'idem again', idempotencyKey: { key: 'order-2', ttlSeconds: HOUR } },
      { queue: 'q', data: 'idem twice', idempotencyKey: { key: 'order-2', ttlSeconds: HOUR } },
      ...KEYED,
    ]);
    assert.deepEqual(
      second.map((r) => r.deduplicated),
      [false, true, true, true, true],
    );
    assert.equal(second[1].id, second[0].id);
    assert.deepEqual(
      second.slice(2).map((r) => r.id),
      first.slice(0, 3).map((r) => r.id),
    );
    assert.equal(await countRows(tm, 'jobs'), 5);
  });
});
