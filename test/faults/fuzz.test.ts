import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  type FrozenRetention,
  InvalidOptionError,
  InvalidRetentionPolicyError,
  QueueNotFoundError,
  Retention,
  TidemarkError,
} from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { rowCounts, sqlOf } from './support/consistency.js';
import { faultSchema } from './support/pg.js';

const FINISHED = ['completed', 'failed', 'cancelled', 'expired'];
const WINDOW_KEYS = [...FINISHED, 'consumedSignals'];
const MAX_WINDOW = 3_200_000_000;

/**
 * What a retention policy should freeze to, worked out independently of the engine: the
 * per-status windows, or null when the policy must be refused.
 */
function expectedRetention(policy: unknown): FrozenRetention | null {
  if (policy === false) return {};
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) return null;
  const input = policy as Record<string, unknown>;
  const keys = Object.keys(input);
  if (keys.some((k) => k !== 'ttlSeconds' && k !== 'statuses' && !WINDOW_KEYS.includes(k))) return null;
  const ttl = keys.includes('ttlSeconds') || keys.includes('statuses');
  if (ttl && keys.some((k) => WINDOW_KEYS.includes(k))) return null;
  const isWindow = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_WINDOW;
  const out: Record<string, number> = {};
  if (ttl) {
    if (!isWindow(input.ttlSeconds)) return null;
    const statuses = input.statuses === undefined ? FINISHED : input.statuses;
    if (!Array.isArray(statuses) || statuses.some((s) => !FINISHED.includes(s))) return null;
    for (const s of statuses) if (input.ttlSeconds !== 0) out[s] = input.ttlSeconds as number;
    return out;
  }
  for (const key of keys) {
    if (input[key] === undefined) continue;
    if (!isWindow(input[key])) return null;
    if (input[key] !== 0) out[key] = input[key] as number;
  }
  return out;
}

/** Mostly valid, sometimes not: keeps a fair share of inputs on each side of the line. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: bad });

/** Strings, including what jsonb and text cannot hold (NUL, unpaired surrogates) and look-alikes. */
const oddUnit = fc.constantFrom(
  '\u0000',
  '\ud800',
  '\udfff',
  '\\u0000',
  '\\ud800',
  '\u{1F600}',
  '"',
  '\\',
  '\u2028',
  'é',
);
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(oddUnit, fc.string({ minLength: 1, maxLength: 1 })),
      maxLength: 6,
    }),
  },
);
const cyclic = (() => {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
})();
const notJson = fc.constantFrom<unknown>(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  () => 1,
  Symbol('s'),
  10n,
  cyclic,
  { toJSON: () => 1n },
  { toJSON: () => undefined },
  [undefined],
);
const data = fc.oneof(
  { weight: 8, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.dictionary(text, fc.oneof(text, fc.double(), fc.boolean()), { maxKeys: 4 }) },
  {
    weight: 1,
    arbitrary: fc.anything({
      maxDepth: 2,
      key: text,
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withBoxedValues: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
    }),
  },
  { weight: 1, arbitrary: notJson },
);
const seconds = fc.double({ min: 0, max: 4e9, noNaN: true });
const anyNumber = fc.oneof(fc.double(), fc.integer(), text, fc.constant(null));
const window = mostly(
  fc.integer({ min: 0, max: MAX_WINDOW }),
  fc.oneof(fc.integer({ min: -50, max: -1 }), fc.double(), fc.constant(MAX_WINDOW + 1), text),
);
const status = mostly(fc.constantFrom(...FINISHED), fc.constantFrom('pending', 'active', 'running', 'done'));
const retention = fc.oneof(
  fc.record(
    { ttlSeconds: window, statuses: fc.array(status, { maxLength: 4 }) },
    { requiredKeys: ['ttlSeconds'] },
  ),
  fc.record({ statuses: fc.array(status, { maxLength: 2 }) }),
  fc.record(
    { completed: window, failed: window, cancelled: window, expired: window, consumedSignals: window },
    { requiredKeys: [] },
  ),
  fc.constantFrom<unknown>(false, null, 'tight', [], Retention.TIGHT, Retention.STOCK, {
    ttlSeconds: 60,
    completed: 60,
  }),
  fc.record({ bogus: window }),
);
const addOptions = fc
  .tuple(
    fc.record(
      {
        queue: mostly(
          fc.constant('fuzz'),
          fc.oneof(fc.constant('nope'), fc.constant(undefined), text, fc.integer()),
        ),
        data,
        retention,
        runAt: mostly(
          fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
          fc.oneof(fc.date(), text, fc.integer()),
        ),
        delaySeconds: mostly(fc.double({ min: 0, max: 3.1e9, noNaN: true }), anyNumber),
        priority: mostly(fc.integer({ min: -1_000_000, max: 1_000_000 }), anyNumber),
        maxAttempts: mostly(fc.integer({ min: 1, max: 1_000 }), anyNumber),
        expireInSeconds: mostly(seconds, anyNumber),
        idempotencyKey: mostly(
          fc.record({
            key: fc.string({ minLength: 1, maxLength: 20 }),
            ttlSeconds: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
          }),
          fc.oneof(
            text,
            fc.record({ key: text, ttlSeconds: anyNumber }),
            fc.record({ key: text, ttlSeconds: seconds, extra: fc.integer() }),
          ),
        ),
        uniqueFor: mostly(fc.double({ min: 0.001, max: 1e6, noNaN: true }), anyNumber),
        unique: mostly(
          fc.oneof(fc.boolean(), fc.string({ minLength: 1, maxLength: 20 })),
          fc.oneof(text, fc.integer()),
        ),
      },
      { requiredKeys: ['queue'] },
    ),
    fc.integer({ min: 0, max: 30 }),
  )
  .map(([options, dice]) => {
    const out: Record<string, unknown> = { ...options };
    // Options that exclude each other meet only now and then, so most inputs stay addable.
    if (dice > 3) {
      if ('runAt' in out) delete out.delaySeconds;
      const dedupe = ['idempotencyKey', 'uniqueFor', 'unique'].filter((key) => key in out);
      for (const key of dedupe.slice(1)) delete out[key];
    }
    // An unknown option, rarely.
    if (dice === 0) out.bogus = 1;
    return out;
  });

/** The tables an add or a queue definition can write to. */
const WRITTEN = ['jobs', 'unique_locks', 'queues'] as const;

const TYPED_FIELDS = [
  'queue',
  'data',
  'retention',
  'runAt',
  'delaySeconds',
  'priority',
  'maxAttempts',
  'expireInSeconds',
  'idempotencyKey',
  'uniqueFor',
  'unique',
  'bogus',
  'job',
];

describeEachDriver('fuzz: addJob options and retention policies', ({ open }) => {
  test('addJob either stores exactly what was asked or refuses with a typed error and writes nothing', async (t) => {
    const tm = await open({ schema: faultSchema() });
    tm.createQueue({ name: 'fuzz', maxAttempts: 4 });
    await tm.listQueues();
    const sql = sqlOf(tm);
    const tally = { accepted: 0, deduplicated: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(addOptions, async (options) => {
        const before = await rowCounts(sql, tm.schema, WRITTEN);
        let result: { id: string; deduplicated: boolean } | null = null;
        let caught: unknown = null;
        try {
          result = await tm.addJob(options as never);
        } catch (error) {
          caught = error;
        }
        const after = await rowCounts(sql, tm.schema, WRITTEN);
        const policy = expectedRetention(options.retention);
        if (caught) {
          tally.refused++;
          assert.ok(caught instanceof TidemarkError, `untyped error: ${String(caught)}`);
          assert.deepEqual(after, before, 'a refused add wrote rows');
          if (caught instanceof InvalidOptionError) {
            const root = caught.field.split(/[.[]/)[0];
            assert.ok(TYPED_FIELDS.includes(root), `unexpected field ${caught.field}`);
            if (root === 'retention') {
              assert.ok(caught instanceof InvalidRetentionPolicyError);
              assert.ok(
                'retention' in options && policy === null,
                `refused a valid policy: ${caught.message}`,
              );
            }
          } else {
            assert.ok(caught instanceof QueueNotFoundError, `${caught.name}: ${caught.message}`);
          }
          return;
        }
        assert.ok(result);
        // A policy the oracle refuses must never get in.
        assert.ok(
          !('retention' in options) || policy !== null,
          `accepted ${JSON.stringify(options.retention)}`,
        );
        if (result.deduplicated) {
          tally.deduplicated++;
          assert.equal(after.jobs, before.jobs);
          assert.ok(await tm.getJob(result.id));
          return;
        }
        tally.accepted++;
        assert.equal(after.jobs, before.jobs + 1);
        const job = await tm.getJob(result.id);
        assert.ok(job);
        assert.equal(job.queue, options.queue);
        assert.deepEqual(job.data, JSON.parse(JSON.stringify(options.data ?? null)));
        assert.equal(job.priority, options.priority ?? 0);
        assert.equal(job.maxAttempts, options.maxAttempts ?? 4);
        assert.deepEqual(job.retention, 'retention' in options ? policy : Retention.STOCK);
        if (options.runAt !== undefined)
          assert.equal(job.runAt.getTime(), new Date(options.runAt as string).getTime());
        if (options.expireInSeconds !== undefined) {
          const expected = job.runAt.getTime() + (options.expireInSeconds as number) * 1000;
          assert.ok(Math.abs((job.expireAt?.getTime() ?? 0) - expected) <= 1, 'expireAt');
        }
        assert.equal(job.status, 'pending');
      }),
      { numRuns: 200 },
    );
    t.diagnostic(`${tally.accepted} accepted, ${tally.deduplicated} deduplicated, ${tally.refused} refused`);
    assert.ok(tally.accepted >= 10 && tally.refused >= 10, JSON.stringify(tally));
  });

  test('a queue retention policy is either frozen onto its jobs exactly or refused and nothing stored', async (t) => {
    const tm = await open({ schema: faultSchema() });
    const sql = sqlOf(tm);
    let n = 0;
    const tally = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(retention, async (policy) => {
        const name = `q${++n}`;
        const expected = expectedRetention(policy);
        const before = await rowCounts(sql, tm.schema, WRITTEN);
        let caught: unknown = null;
        try {
          tm.createQueue({ name, retention: policy as never });
        } catch (error) {
          caught = error;
        }
        if (caught) {
          tally.refused++;
          assert.ok(caught instanceof InvalidRetentionPolicyError, String(caught));
          assert.ok(caught.field.startsWith('retention'), caught.field);
          assert.equal(expected, null, `refused a valid policy: ${caught.message}`);
          await tm.listQueues();
          assert.deepEqual(await rowCounts(sql, tm.schema, WRITTEN), before);
          return;
        }
        tally.accepted++;
        assert.notEqual(expected, null, `accepted ${JSON.stringify(policy)}`);
        const { id } = await tm.addJob({ queue: name });
        assert.deepEqual((await tm.getJob(id))?.retention, expected);
      }),
      { numRuns: 150 },
    );
    t.diagnostic(`${tally.accepted} accepted, ${tally.refused} refused`);
  });
});
