import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OPTION_SETS } from '../../src/option-sets.js';
import { toJsonSchema } from '../../src/options/json-schema.js';
import type { OptionSet } from '../../src/options/option-set.js';

/** A valid input of each set, written as another language would send it: JSON only. */
const VALID: Record<keyof typeof OPTION_SETS, Record<string, unknown>> = {
  open: { database: 'postgres://db/app', schema: 'jobs', retention: { completed: 60 }, poolSize: 5 },
  queue: { name: 'emails', maxAttempts: 5, backoff: { delaySeconds: 2 }, signals: { approval: 1 } },
  limiter: { limit: 100, periodSeconds: 60, burst: 9 },
  job: {
    queue: 'emails',
    data: { to: 'a@example.com' },
    runAt: '2030-01-01T00:00:00Z',
    priority: 3,
    idempotencyKey: { key: 'k', ttlSeconds: 60 },
    retention: false,
  },
  child: { priority: 1, retention: { ttlSeconds: 60, statuses: ['completed'] } },
  worker: { queues: ['emails'], prefetch: 'auto', sweep: false, uniqueLockSweep: { batchSize: 500 } },
  schedule: { name: 'nightly', cron: '0 3 * * *', queue: 'reports', timezone: 'UTC' },
  dashboard: { port: 0, host: '127.0.0.1', readOnly: true, basePath: '/jobs' },
  api: {
    port: 0,
    tokens: { ci: { secret: 'ci-secret-0123456789', scopes: ['enqueue:emails', 'read'] } },
    maxBodyBytes: 65_536,
  },
  result: { timeoutSeconds: 5 },
  'worker-stop': { timeoutSeconds: 10 },
  'stop-on-signals': { signals: ['SIGTERM'], exit: false },
  instrument: { queueDepthSampleSeconds: 2 },
  'bulk-filter': { queue: 'q', status: 'failed', since: 3600, q: 'timeout' },
  'bulk-options': { dryRun: true, batchSize: 100, throughId: '42', maxMatched: 7 },
  'list-jobs': {
    queue: 'q',
    tags: ['customer:42'],
    createdAfter: '2030-01-01T00:00:00Z',
    limit: 10,
    order: 'asc',
  },
  'count-jobs': { key: 'tenant:acme', status: 'failed', max: 500 },
  'job-logs': { after: '12', limit: 50 },
  subscribe: { pollSeconds: 0.5 },
  sweep: { dryRun: true },
  'remove-jobs': { statuses: ['failed'], olderThanSeconds: 86_400, batchSize: 500 },
  'hold-jobs': { ids: ['1', '2'], reason: 'audit' },
  'pause-retention': { reason: 'incident' },
  'apply-retention': { queue: 'q', policy: { completed: 60 }, dryRun: true },
  'test-kit': { database: 'memory://', now: '2030-01-01T00:00:00Z', retention: { completed: 60 } },
};

/** One invalid input of each set, refused by its JSON Schema as by the engine. */
const INVALID: Record<keyof typeof OPTION_SETS, Record<string, unknown>> = {
  open: { poolSize: 0 },
  queue: { name: 'q', maxAttempts: 1.5 },
  limiter: { limit: 10, periodSeconds: 0 },
  job: { queue: 'q', priority: 2_000_000 },
  child: { queue: 'not a child option' },
  worker: { concurrency: 0 },
  schedule: { name: 'n', cron: '* * * * *' },
  dashboard: { port: 70_000 },
  api: { tokens: { ci: { secret: 'ci-secret-0123456789', scopes: ['write'] } } },
  result: { timeoutSeconds: -1 },
  'worker-stop': { timeoutSeconds: 100_000 },
  'stop-on-signals': { exit: 'yes' },
  instrument: { queueDepthSampleSeconds: 'often' },
  'bulk-filter': { status: 'finished' },
  'bulk-options': { dryRun: 1 },
  'list-jobs': { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
  'count-jobs': { max: 0 },
  'job-logs': { limit: 1001 },
  subscribe: { pollSeconds: 0 },
  sweep: { batchSize: 0 },
  'remove-jobs': { olderThanSeconds: -5 },
  'hold-jobs': { reason: '' },
  'pause-retention': {},
  'apply-retention': { policy: false },
  'test-kit': { database: './folder' },
};

const ajv = new Ajv2020({ strict: false, allErrors: true });

// biome-ignore lint/suspicious/noExplicitAny: sets of different shapes, read alike
const SETS = Object.entries(OPTION_SETS) as [keyof typeof OPTION_SETS, OptionSet<any, any>][];

for (const [id, set] of SETS) {
  test(`${id}: its JSON Schema is plain JSON that a standard validator compiles, and agrees with the engine`, () => {
    const schema = toJsonSchema(set);
    const text = JSON.stringify(schema);
    assert.deepEqual(JSON.parse(text), schema, 'plain JSON');
    assert.doesNotMatch(text, /"(expected|docType|docDefault|docExpand|check|jsonSchema|~custom)"/);
    const validate = ajv.compile(schema);
    assert.equal(validate(VALID[id]), true, JSON.stringify(validate.errors));
    assert.doesNotThrow(() => set.read(structuredClone(VALID[id])), 'the engine accepts it too');
    assert.equal(validate(INVALID[id]), false);
    assert.throws(() => set.read(structuredClone(INVALID[id])), 'the engine refuses it too');
    assert.equal(validate({ ...VALID[id], notAnOption: 1 }), false, 'unknown keys are refused');
  });
}
