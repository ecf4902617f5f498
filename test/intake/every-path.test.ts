import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { fireSchedule } from '../../src/intake/fire-schedule.js';
import { INPUT_FIELDS } from '../../src/storage/sql/job-columns.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

/** A stored job row, as the checks below read it. */
interface StoredRow {
  id: string;
  queue: string;
  data: unknown;
  priority: number;
  max_attempts: number;
  retention: Record<string, number>;
  unique_key: string | null;
  parent_id: string | null;
  root_id: string | null;
  parent_step: string | null;
  key: string | null;
  tier: string | null;
  fold_key: string | null;
  tags: string[] | null;
  /** Seconds from creation to the run time, and from the run time to the expiry. */
  delay: number;
  expires_after: number | null;
}

const RUN_AT = new Date('2031-05-06T07:08:09.000Z');

/**
 * Every option a job request can set, the value each path is given, and what the stored row
 * must then hold. `columns` names the input-row fields the option writes (job-columns.ts).
 */
const FIELDS: {
  option: string;
  value: unknown;
  columns: string[];
  check: (row: StoredRow) => void;
}[] = [
  { option: 'priority', value: 7, columns: ['priority'], check: (row) => assert.equal(row.priority, 7) },
  {
    option: 'maxAttempts',
    value: 9,
    columns: ['max_attempts'],
    check: (row) => assert.equal(row.max_attempts, 9),
  },
  {
    option: 'delaySeconds',
    value: 3_600,
    columns: ['delay_seconds'],
    check: (row) => assert.ok(Math.abs(row.delay - 3_600) < 120, `delay ${row.delay}`),
  },
  {
    option: 'runAt',
    value: RUN_AT,
    columns: ['run_at'],
    check: (row) =>
      assert.ok(Math.abs(row.delay - (RUN_AT.getTime() - Date.now()) / 1000) < 120, `delay ${row.delay}`),
  },
  {
    option: 'expireInSeconds',
    value: 60,
    columns: ['expire_in_seconds'],
    check: (row) => assert.equal(row.expires_after, 60),
  },
  {
    option: 'retention',
    value: { completed: 11 },
    columns: [],
    check: (row) => assert.deepEqual(row.retention, { completed: 11 }),
  },
  {
    option: 'unique',
    value: 'one-key',
    columns: ['unique_key'],
    check: (row) => assert.equal(row.unique_key, 'key:one-key'),
  },
  {
    option: 'key',
    value: 'tenant:acme',
    columns: ['key'],
    check: (row) => assert.equal(row.key, 'tenant:acme'),
  },
  { option: 'tier', value: 'pro', columns: ['tier'], check: (row) => assert.equal(row.tier, 'pro') },
  {
    option: 'debounce',
    value: { key: 'k', seconds: 30 },
    columns: ['fold_key'],
    check: (row) => {
      assert.equal(row.fold_key, 'debounce:k');
      assert.equal(row.delay, 30);
    },
  },
  {
    option: 'throttle',
    value: { key: 'k', seconds: 30 },
    columns: ['fold_key'],
    check: (row) => assert.equal(row.fold_key, 'throttle:k'),
  },
  {
    option: 'tags',
    value: ['customer:42', 'import'],
    columns: ['tags'],
    check: (row) => assert.deepEqual(row.tags, ['customer:42', 'import']),
  },
];

/** What a job gets from its queue when the path leaves an option out. */
const QUEUE = {
  name: 'target',
  maxAttempts: 4,
  retention: { completed: 22 },
  keys: { concurrency: { default: 1, tiers: { pro: 2 } } },
};

/** Every way a job enters, each given the options it takes; returns the new job's id. */
const PATHS: {
  path: string;
  takes: string[];
  add(tm: Tidemark, data: unknown, options: Record<string, unknown>): Promise<string>;
}[] = [
  {
    path: 'addJob',
    takes: FIELDS.map((f) => f.option),
    add: async (tm, data, options) => (await tm.addJob({ queue: QUEUE.name, data, ...options })).id,
  },
  {
    path: 'addJobs, a batch of two',
    takes: FIELDS.map((f) => f.option),
    add: async (tm, data, options) => {
      const [first] = await tm.addJobs([
        { queue: QUEUE.name, data, ...options },
        { queue: QUEUE.name, data: 'the other job' },
      ]);
      return first.id;
    },
  },
  {
    path: 'addJob inside a caller transaction',
    takes: FIELDS.map((f) => f.option),
    add: (tm, data, options) =>
      tm.transaction(async (tx) => (await tm.addJob({ queue: QUEUE.name, data, ...options }, { tx })).id),
  },
  {
    path: 'addJob behind an idempotency key',
    takes: FIELDS.map((f) => f.option).filter(
      (option) => !['unique', 'debounce', 'throttle'].includes(option),
    ),
    add: async (tm, data, options) =>
      (
        await tm.addJob({
          queue: QUEUE.name,
          data,
          idempotencyKey: { key: JSON.stringify(options), ttlSeconds: 60 },
          ...options,
        })
      ).id,
  },
  {
    path: 'add_job in SQL',
    takes: FIELDS.map((f) => f.option),
    add: (tm, data, options) =>
      tm.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `select id::text as id from "${tm.schema}".add_job($1, $2::jsonb, $3::jsonb)`,
          [QUEUE.name, JSON.stringify(data), JSON.stringify(options)],
        );
        return rows[0].id;
      }),
  },
  {
    path: 'add_jobs in SQL, a batch of two',
    takes: FIELDS.map((f) => f.option),
    add: (tm, data, options) =>
      tm.transaction(async (tx) => {
        const jobs = [
          { queue: QUEUE.name, data, ...options },
          { queue: QUEUE.name, data: 'the other job' },
        ];
        const { rows } = await tx.query<{ id: string }>(
          `select id::text as id from "${tm.schema}".add_jobs($1::jsonb)`,
          [JSON.stringify(jobs)],
        );
        return rows[0].id;
      }),
  },
  {
    path: 'ctx.runChild',
    takes: ['priority', 'maxAttempts', 'delaySeconds', 'retention', 'key', 'tier', 'tags'],
    add: async (tm, data, options) => {
      const parent = await tm.addJob({ queue: 'parent', data: { data, options } });
      const worker = tm.worker({ queues: ['parent'], pollIntervalSeconds: 0.05, sweep: false });
      await worker.start();
      try {
        const [child] = await waitFor('the child to be added', async () => {
          const rows = await rawQuery<{ id: string }>(
            tm,
            `select id::text as id from "${tm.schema}".jobs where parent_id = $1`,
            [parent.id],
          );
          return rows.length > 0 ? rows : null;
        });
        return child.id;
      } finally {
        await worker.stop();
      }
    },
  },
  {
    path: 'a schedule fire',
    takes: ['key', 'tier', 'tags'],
    add: async (tm, data, options) => {
      await tm.schedule({ name: 'nightly', cron: '0 3 * * *', queue: QUEUE.name, data, ...options });
      // The fire as the tick makes it, from the schedule as stored.
      const [stored] = await tm.listSchedules();
      const fireAt = new Date(Date.now() + 60_000);
      const id = await fireSchedule(engineOf(tm), {
        schedule: 'nightly',
        fireAt,
        queue: stored.queue,
        data: stored.data,
        options: {
          ...stored.jobOptions,
          ...(stored.key !== null ? { key: stored.key } : {}),
          ...(stored.tier !== null ? { tier: stored.tier } : {}),
          ...(stored.tags.length > 0 ? { tags: stored.tags } : {}),
        },
        manual: false,
      });
      assert.ok(id, 'the fire created its job');
      return id;
    },
  },
];

async function storedRow(tm: Tidemark, id: string): Promise<StoredRow> {
  const [row] = await rawQuery<StoredRow>(
    tm,
    `select id::text as id, queue, data, priority, max_attempts, retention, unique_key,
            parent_id::text as parent_id, root_id::text as root_id, parent_step, key, tier, fold_key, tags,
            extract(epoch from run_at - created_at)::float8 as delay,
            extract(epoch from expire_at - run_at)::float8 as expires_after
       from "${tm.schema}".jobs where id = $1`,
    [id],
  );
  assert.ok(row, `job ${id} is stored`);
  return row;
}

async function openWithQueues(open: (options?: object) => Promise<Tidemark>): Promise<Tidemark> {
  const tm = await open({ logger: silentLogger });
  tm.createQueue(QUEUE);
  tm.createQueue({
    name: 'parent',
    handler: async (job, ctx) => {
      const { data, options } = job.data as { data: unknown; options: Record<string, unknown> };
      await ctx.runChild(QUEUE.name, data, options);
    },
  });
  return tm;
}

test('the table names every field of the input row the intake writes', () => {
  const covered = new Set(FIELDS.flatMap((f) => f.columns));
  // Set by the intake itself, never by an option: a child's place in its tree.
  for (const placed of ['parent_id', 'root_id', 'parent_step']) covered.add(placed);
  // The trace the add ran in, when tracing is on (test/tracing/spans.test.ts).
  covered.add('trace');
  // The queue's version (test/workflow/determinism.test.ts) and a fork's original
  // (test/jobs/fork.test.ts): set by the intake from the queue and by tm.forkJob, not by an option.
  covered.add('version');
  covered.add('forked_from');
  // The queue is every path's first argument.
  covered.add('queue');
  assert.deepEqual(
    Object.keys(INPUT_FIELDS).filter((field) => !covered.has(field)),
    [],
  );
});

describeEachDriver('every way in stores every field of a job', ({ open }) => {
  for (const { path, takes, add } of PATHS) {
    test(`${path}: the options it takes are stored, its queue gives the rest`, async () => {
      const tm = await openWithQueues(open);
      for (const field of FIELDS.filter((f) => takes.includes(f.option))) {
        const data = { path, field: field.option };
        const row = await storedRow(tm, await add(tm, data, { [field.option]: field.value }));
        assert.equal(row.queue, QUEUE.name);
        assert.deepEqual(row.data, data);
        field.check(row);
        if (field.option !== 'maxAttempts') assert.equal(row.max_attempts, QUEUE.maxAttempts, field.option);
        if (field.option !== 'retention') assert.deepEqual(row.retention, QUEUE.retention, field.option);
      }
      const plain = await storedRow(tm, await add(tm, { path, plain: true }, {}));
      assert.deepEqual(
        [plain.priority, plain.max_attempts, plain.retention, plain.unique_key, plain.expires_after],
        [0, QUEUE.maxAttempts, QUEUE.retention, null, null],
      );
      if (path === 'ctx.runChild') {
        assert.ok(plain.parent_id, 'a child names its parent');
        assert.equal(plain.root_id, plain.parent_id);
        assert.equal(plain.parent_step, 'child#1');
      } else {
        assert.deepEqual([plain.parent_id, plain.root_id, plain.parent_step], [null, null, null]);
      }
    });
  }
});
