import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  HoldNotFoundError,
  InvalidJobStateError,
  InvalidOptionError,
  InvalidRetentionPolicyError,
  JobHasChildrenError,
  JobInFlightError,
  JobNotFoundError,
  MAX_PAYLOAD_BYTES,
  QueueNotFoundError,
  ScheduleNotFoundError,
  Tidemark,
  TidemarkError,
  UnknownSignalError,
} from '../../src/index.js';
import { PG_URL, sharedPgliteInstance } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob, insertTree } from '../support/factory.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import { type RunSql, rowCounts, sqlOf } from './support/consistency.js';
import { faultSchema } from './support/pg.js';

type ErrorClass = abstract new (...args: never[]) => Error;

/** The jobs a case can point at, made once per driver. */
interface Fixture {
  pending: string;
  completed: string;
  parent: string;
  inFlightTree: string;
  missing: string;
  database: unknown;
}

interface Case {
  name: string;
  call: (tm: Tidemark, f: Fixture) => unknown;
  error: ErrorClass;
  /** InvalidOptionError.field; required for InvalidOptionError and its subclasses. */
  field?: string;
}

const cycle: Record<string, unknown> = { a: 1 };
cycle.self = cycle;
const oversized = 'x'.repeat(MAX_PAYLOAD_BYTES);
const valid = { queue: 'known' };

/** Cases grouped by the public method they call. */
const cases: Record<string, Case[]> = {
  open: [
    {
      name: 'options not an object',
      call: () => Tidemark.open(5 as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'unknown option',
      call: (_, f) => openWith(f, { bogus: 1 }),
      error: InvalidOptionError,
      field: 'bogus',
    },
    {
      name: 'schema not an identifier',
      call: (_, f) => openWith(f, { schema: 'Bad-Name' }),
      error: InvalidOptionError,
      field: 'schema',
    },
    {
      name: 'database a number',
      call: (_, f) => openWith(f, { database: 42 }),
      error: InvalidOptionError,
      field: 'database',
    },
    {
      name: 'database empty',
      call: (_, f) => openWith(f, { database: '' }),
      error: InvalidOptionError,
      field: 'database',
    },
    {
      name: 'negative retention window',
      call: (_, f) => openWith(f, { retention: { completed: -1 } }),
      error: InvalidRetentionPolicyError,
      field: 'retention.completed',
    },
    {
      name: 'retention a string',
      call: (_, f) => openWith(f, { retention: 'forever' }),
      error: InvalidRetentionPolicyError,
      field: 'retention',
    },
    {
      name: 'poolSize zero',
      call: (_, f) => openWith(f, { poolSize: 0 }),
      error: InvalidOptionError,
      field: 'poolSize',
    },
    {
      name: 'poolSize a string',
      call: (_, f) => openWith(f, { poolSize: 'ten' }),
      error: InvalidOptionError,
      field: 'poolSize',
    },
    {
      name: 'strictDurability a string',
      call: (_, f) => openWith(f, { strictDurability: 'yes' }),
      error: InvalidOptionError,
      field: 'strictDurability',
    },
    {
      name: 'migrate a string',
      call: (_, f) => openWith(f, { migrate: 'no' }),
      error: InvalidOptionError,
      field: 'migrate',
    },
    {
      name: 'logger a number',
      call: (_, f) => openWith(f, { logger: 42 }),
      error: InvalidOptionError,
      field: 'logger',
    },
    {
      name: 'logger without methods',
      call: (_, f) => openWith(f, { logger: { warn() {} } }),
      error: InvalidOptionError,
      field: 'logger',
    },
    {
      name: 'archive not a function',
      call: (_, f) => openWith(f, { archive: 5 }),
      error: InvalidOptionError,
      field: 'archive',
    },
    {
      name: 'capabilities a number',
      call: (_, f) => openWith(f, { capabilities: 5 }),
      error: InvalidOptionError,
      field: 'capabilities',
    },
  ],
  createQueue: [
    {
      name: 'not an object',
      call: (tm) => tm.createQueue(5 as never),
      error: InvalidOptionError,
      field: 'queue',
    },
    { name: 'no name', call: (tm) => tm.createQueue({} as never), error: InvalidOptionError, field: 'name' },
    {
      name: 'empty name',
      call: (tm) => tm.createQueue({ name: '' }),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'name too long',
      call: (tm) => tm.createQueue({ name: 'x'.repeat(201) }),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'name with NUL',
      call: (tm) => tm.createQueue({ name: 'a\u0000b' }),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'name with a lone surrogate',
      call: (tm) => tm.createQueue({ name: 'a\ud800' }),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'handler not a function',
      call: (tm) => tm.createQueue({ name: 'n', handler: 5 as never }),
      error: InvalidOptionError,
      field: 'handler',
    },
    {
      name: 'concurrency 0',
      call: (tm) => tm.createQueue({ name: 'n', concurrency: 0 }),
      error: InvalidOptionError,
      field: 'concurrency',
    },
    {
      name: 'maxAttempts fractional',
      call: (tm) => tm.createQueue({ name: 'n', maxAttempts: 1.5 }),
      error: InvalidOptionError,
      field: 'maxAttempts',
    },
    {
      name: 'maxAttempts too large',
      call: (tm) => tm.createQueue({ name: 'n', maxAttempts: 1001 }),
      error: InvalidOptionError,
      field: 'maxAttempts',
    },
    {
      name: 'timeoutSeconds 0',
      call: (tm) => tm.createQueue({ name: 'n', timeoutSeconds: 0 }),
      error: InvalidOptionError,
      field: 'timeoutSeconds',
    },
    {
      name: 'timeoutSeconds NaN',
      call: (tm) => tm.createQueue({ name: 'n', timeoutSeconds: Number.NaN }),
      error: InvalidOptionError,
      field: 'timeoutSeconds',
    },
    {
      name: 'backoff delay a string',
      call: (tm) => tm.createQueue({ name: 'n', backoff: { delaySeconds: 'x' as never } }),
      error: InvalidOptionError,
      field: 'backoff.delaySeconds',
    },
    {
      name: 'backoff factor below 1',
      call: (tm) => tm.createQueue({ name: 'n', backoff: { delaySeconds: 1, factor: 0.5 } }),
      error: InvalidOptionError,
      field: 'backoff.factor',
    },
    {
      name: 'signal mailbox 0',
      call: (tm) => tm.createQueue({ name: 'n', signals: { go: 0 } }),
      error: InvalidOptionError,
      field: 'signals.go',
    },
    {
      name: 'signals a string',
      call: (tm) => tm.createQueue({ name: 'n', signals: 'go' as never }),
      error: InvalidOptionError,
      field: 'signals',
    },
    {
      name: 'deleteCheckpointsOnComplete a string',
      call: (tm) => tm.createQueue({ name: 'n', deleteCheckpointsOnComplete: 'yes' as never }),
      error: InvalidOptionError,
      field: 'deleteCheckpointsOnComplete',
    },
    {
      name: 'retention window negative',
      call: (tm) => tm.createQueue({ name: 'n', retention: { completed: -1 } }),
      error: InvalidRetentionPolicyError,
      field: 'retention.completed',
    },
    {
      name: 'retention shapes mixed',
      call: (tm) => tm.createQueue({ name: 'n', retention: { ttlSeconds: 5, completed: 5 } as never }),
      error: InvalidRetentionPolicyError,
      field: 'retention',
    },
    {
      name: 'retention in-flight status',
      call: (tm) =>
        tm.createQueue({ name: 'n', retention: { ttlSeconds: 5, statuses: ['pending' as never] } }),
      error: InvalidRetentionPolicyError,
      field: 'retention.statuses[0]',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.createQueue({ name: 'n', bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  addJob: [
    { name: 'not an object', call: (tm) => tm.addJob(5 as never), error: InvalidOptionError, field: 'job' },
    { name: 'no queue', call: (tm) => tm.addJob({} as never), error: InvalidOptionError, field: 'queue' },
    {
      name: 'queue a number',
      call: (tm) => tm.addJob({ queue: 5 as never }),
      error: InvalidOptionError,
      field: 'queue',
    },
    { name: 'unknown queue', call: (tm) => tm.addJob({ queue: 'nope' }), error: QueueNotFoundError },
    {
      name: 'data a function',
      call: (tm) => tm.addJob({ ...valid, data: () => 1 }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data with a method',
      call: (tm) => tm.addJob({ ...valid, data: { f() {} } }),
      error: InvalidOptionError,
      field: 'data.f',
    },
    {
      name: 'data a BigInt',
      call: (tm) => tm.addJob({ ...valid, data: 1n }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data holding a BigInt',
      call: (tm) => tm.addJob({ ...valid, data: { n: 1n } }),
      error: InvalidOptionError,
      field: 'data.n',
    },
    {
      name: 'data with a cycle',
      call: (tm) => tm.addJob({ ...valid, data: cycle }),
      error: InvalidOptionError,
      field: 'data.self',
    },
    {
      name: 'data a symbol',
      call: (tm) => tm.addJob({ ...valid, data: Symbol('s') }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data holding a symbol',
      call: (tm) => tm.addJob({ ...valid, data: { s: Symbol('s') } }),
      error: InvalidOptionError,
      field: 'data.s',
    },
    {
      name: 'data NaN',
      call: (tm) => tm.addJob({ ...valid, data: Number.NaN }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data holding Infinity',
      call: (tm) => tm.addJob({ ...valid, data: [1, Number.POSITIVE_INFINITY] }),
      error: InvalidOptionError,
      field: 'data[1]',
    },
    {
      name: 'data holding undefined in an array',
      call: (tm) => tm.addJob({ ...valid, data: [undefined] }),
      error: InvalidOptionError,
      field: 'data[0]',
    },
    {
      name: 'data over MAX_PAYLOAD_BYTES',
      call: (tm) => tm.addJob({ ...valid, data: oversized }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data whose toJSON gives a BigInt',
      call: (tm) => tm.addJob({ ...valid, data: { a: { toJSON: () => 1n } } }),
      error: InvalidOptionError,
      field: 'data.a',
    },
    {
      name: 'data whose toJSON gives nothing',
      call: (tm) => tm.addJob({ ...valid, data: { toJSON: () => undefined } }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data with NUL',
      call: (tm) => tm.addJob({ ...valid, data: 'a\u0000' }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data with a lone surrogate',
      call: (tm) => tm.addJob({ ...valid, data: { s: '\ud800' } }),
      error: InvalidOptionError,
      field: 'data.s',
    },
    {
      name: 'data key with a lone surrogate',
      call: (tm) => tm.addJob({ ...valid, data: { '\udc00': 1 } }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'priority fractional',
      call: (tm) => tm.addJob({ ...valid, priority: 1.5 }),
      error: InvalidOptionError,
      field: 'priority',
    },
    {
      name: 'priority out of range',
      call: (tm) => tm.addJob({ ...valid, priority: 1e7 }),
      error: InvalidOptionError,
      field: 'priority',
    },
    {
      name: 'priority a string',
      call: (tm) => tm.addJob({ ...valid, priority: '1' as never }),
      error: InvalidOptionError,
      field: 'priority',
    },
    {
      name: 'maxAttempts 0',
      call: (tm) => tm.addJob({ ...valid, maxAttempts: 0 }),
      error: InvalidOptionError,
      field: 'maxAttempts',
    },
    {
      name: 'delaySeconds negative',
      call: (tm) => tm.addJob({ ...valid, delaySeconds: -1 }),
      error: InvalidOptionError,
      field: 'delaySeconds',
    },
    {
      name: 'delaySeconds NaN',
      call: (tm) => tm.addJob({ ...valid, delaySeconds: Number.NaN }),
      error: InvalidOptionError,
      field: 'delaySeconds',
    },
    {
      name: 'runAt not a date',
      call: (tm) => tm.addJob({ ...valid, runAt: 'not a date' }),
      error: InvalidOptionError,
      field: 'runAt',
    },
    {
      name: 'runAt an invalid Date',
      call: (tm) => tm.addJob({ ...valid, runAt: new Date(Number.NaN) }),
      error: InvalidOptionError,
      field: 'runAt',
    },
    {
      name: 'runAt before year 1',
      call: (tm) => tm.addJob({ ...valid, runAt: new Date(-8.64e15) }),
      error: InvalidOptionError,
      field: 'runAt',
    },
    {
      name: 'runAt after year 9999',
      call: (tm) => tm.addJob({ ...valid, runAt: new Date(8.64e15) }),
      error: InvalidOptionError,
      field: 'runAt',
    },
    {
      name: 'runAt and delaySeconds',
      call: (tm) => tm.addJob({ ...valid, runAt: new Date(), delaySeconds: 1 }),
      error: InvalidOptionError,
      field: 'delaySeconds',
    },
    {
      name: 'expireInSeconds 0',
      call: (tm) => tm.addJob({ ...valid, expireInSeconds: 0 }),
      error: InvalidOptionError,
      field: 'expireInSeconds',
    },
    {
      name: 'idempotencyKey a string',
      call: (tm) => tm.addJob({ ...valid, idempotencyKey: 'k' as never }),
      error: InvalidOptionError,
      field: 'idempotencyKey',
    },
    {
      name: 'idempotencyKey empty key',
      call: (tm) => tm.addJob({ ...valid, idempotencyKey: { key: '', ttlSeconds: 1 } }),
      error: InvalidOptionError,
      field: 'idempotencyKey.key',
    },
    {
      name: 'idempotencyKey key with NUL',
      call: (tm) => tm.addJob({ ...valid, idempotencyKey: { key: 'a\u0000', ttlSeconds: 1 } }),
      error: InvalidOptionError,
      field: 'idempotencyKey.key',
    },
    {
      name: 'idempotencyKey ttl 0',
      call: (tm) => tm.addJob({ ...valid, idempotencyKey: { key: 'k', ttlSeconds: 0 } }),
      error: InvalidOptionError,
      field: 'idempotencyKey.ttlSeconds',
    },
    {
      name: 'idempotencyKey unknown key',
      call: (tm) => tm.addJob({ ...valid, idempotencyKey: { key: 'k', ttlSeconds: 1, x: 1 } as never }),
      error: InvalidOptionError,
      field: 'idempotencyKey.x',
    },
    {
      name: 'idempotencyKey and uniqueFor',
      call: (tm) => tm.addJob({ ...valid, idempotencyKey: { key: 'k', ttlSeconds: 1 }, uniqueFor: 5 }),
      error: InvalidOptionError,
      field: 'uniqueFor',
    },
    {
      name: 'uniqueFor negative',
      call: (tm) => tm.addJob({ ...valid, uniqueFor: -1 }),
      error: InvalidOptionError,
      field: 'uniqueFor',
    },
    {
      name: 'unique a number',
      call: (tm) => tm.addJob({ ...valid, unique: 5 as never }),
      error: InvalidOptionError,
      field: 'unique',
    },
    {
      name: 'unique key with NUL',
      call: (tm) => tm.addJob({ ...valid, unique: 'a\u0000' }),
      error: InvalidOptionError,
      field: 'unique',
    },
    {
      name: 'retention window negative',
      call: (tm) => tm.addJob({ ...valid, retention: { completed: -1 } }),
      error: InvalidRetentionPolicyError,
      field: 'retention.completed',
    },
    {
      name: 'retention window fractional',
      call: (tm) => tm.addJob({ ...valid, retention: { failed: 1.5 } }),
      error: InvalidRetentionPolicyError,
      field: 'retention.failed',
    },
    {
      name: 'retention unknown key',
      call: (tm) => tm.addJob({ ...valid, retention: { bogus: 1 } as never }),
      error: InvalidRetentionPolicyError,
      field: 'retention.bogus',
    },
    {
      name: 'retention unknown status',
      call: (tm) => tm.addJob({ ...valid, retention: { ttlSeconds: 10, statuses: ['running' as never] } }),
      error: InvalidRetentionPolicyError,
      field: 'retention.statuses[0]',
    },
    {
      name: 'retention a string',
      call: (tm) => tm.addJob({ ...valid, retention: 'tight' as never }),
      error: InvalidRetentionPolicyError,
      field: 'retention',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.addJob({ ...valid, bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
    {
      name: 'tx without query()',
      call: (tm) => tm.addJob(valid, { tx: 5 as never }),
      error: InvalidOptionError,
      field: 'tx',
    },
  ],
  addJobs: [
    {
      name: 'not an array',
      call: (tm) => tm.addJobs('x' as never),
      error: InvalidOptionError,
      field: 'jobs',
    },
    {
      name: 'second job invalid',
      call: (tm) => tm.addJobs([valid, { ...valid, priority: 'high' as never }]),
      error: InvalidOptionError,
      field: 'jobs[1].priority',
    },
    {
      name: 'second job non-JSON data',
      call: (tm) => tm.addJobs([valid, { ...valid, data: 1n }]),
      error: InvalidOptionError,
      field: 'jobs[1].data',
    },
    {
      name: 'second job unknown queue',
      call: (tm) => tm.addJobs([valid, { queue: 'nope' }]),
      error: QueueNotFoundError,
    },
  ],
  getJob: [...badIds((tm, id) => tm.getJob(id), 'id')],
  result: [
    ...badIds((tm, id) => tm.result(id), 'id'),
    {
      name: 'timeoutSeconds negative',
      call: (tm, f) => tm.result(f.pending, { timeoutSeconds: -1 }),
      error: InvalidOptionError,
      field: 'timeoutSeconds',
    },
    {
      name: 'options not an object',
      call: (tm, f) => tm.result(f.pending, 5 as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'unknown option',
      call: (tm, f) => tm.result(f.pending, { bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
    { name: 'missing job', call: (tm, f) => tm.result(f.missing), error: JobNotFoundError },
  ],
  getJobDetail: [...badIds((tm, id) => tm.getJobDetail(id), 'id')],
  cancelJob: [
    ...badIds((tm, id) => tm.cancelJob(id), 'id'),
    { name: 'missing job', call: (tm, f) => tm.cancelJob(f.missing), error: JobNotFoundError },
  ],
  retryJob: [
    ...badIds((tm, id) => tm.retryJob(id), 'id'),
    { name: 'missing job', call: (tm, f) => tm.retryJob(f.missing), error: JobNotFoundError },
    { name: 'pending job', call: (tm, f) => tm.retryJob(f.pending), error: InvalidJobStateError },
  ],
  pauseJob: [
    ...badIds((tm, id) => tm.pauseJob(id), 'id'),
    { name: 'missing job', call: (tm, f) => tm.pauseJob(f.missing), error: JobNotFoundError },
    { name: 'completed job', call: (tm, f) => tm.pauseJob(f.completed), error: InvalidJobStateError },
  ],
  resumeJob: [
    ...badIds((tm, id) => tm.resumeJob(id), 'id'),
    { name: 'missing job', call: (tm, f) => tm.resumeJob(f.missing), error: JobNotFoundError },
    { name: 'pending job', call: (tm, f) => tm.resumeJob(f.pending), error: InvalidJobStateError },
  ],
  deleteJob: [
    ...badIds((tm, id) => tm.deleteJob(id), 'id'),
    { name: 'missing job', call: (tm, f) => tm.deleteJob(f.missing), error: JobNotFoundError },
    { name: 'in-flight job', call: (tm, f) => tm.deleteJob(f.pending), error: JobInFlightError },
    { name: 'job with children', call: (tm, f) => tm.deleteJob(f.parent), error: JobHasChildrenError },
  ],
  deleteWorkflowSubtree: [
    ...badIds((tm, id) => tm.deleteWorkflowSubtree(id), 'id'),
    { name: 'missing job', call: (tm, f) => tm.deleteWorkflowSubtree(f.missing), error: JobNotFoundError },
    {
      name: 'tree with an in-flight child',
      call: (tm, f) => tm.deleteWorkflowSubtree(f.inFlightTree),
      error: JobInFlightError,
    },
  ],
  listAudit: [
    {
      name: 'since after until',
      call: (tm) => tm.listAudit({ since: '2026-02-02T00:00:00Z', until: '2026-02-01T00:00:00Z' }),
      error: InvalidOptionError,
      field: 'since',
    },
    {
      name: 'until not a date',
      call: (tm) => tm.listAudit({ until: 'soon' }),
      error: InvalidOptionError,
      field: 'until',
    },
    {
      name: 'unknown action',
      call: (tm) => tm.listAudit({ action: 'explode' as never }),
      error: InvalidOptionError,
      field: 'action',
    },
    {
      name: 'limit out of range',
      call: (tm) => tm.listAudit({ limit: 501 }),
      error: InvalidOptionError,
      field: 'limit',
    },
    {
      name: 'after not an id',
      call: (tm) => tm.listAudit({ after: 'last' }),
      error: InvalidOptionError,
      field: 'after',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.listAudit({ who: 'alice' } as never),
      error: InvalidOptionError,
      field: 'options.who',
    },
  ],
  audited: [
    {
      name: 'an empty actor',
      call: (tm, f) => tm.cancelJob(f.pending, { actor: '' }),
      error: InvalidOptionError,
      field: 'options.actor',
    },
    {
      name: 'an unknown source',
      call: (tm) => tm.pauseQueue('known', { source: 'web' as never }),
      error: InvalidOptionError,
      field: 'options.source',
    },
    {
      name: 'an actor that is not text, on a bulk action',
      call: (tm) => tm.retryJobs({ queue: 'known', status: 'completed' }, { actor: 5 as never }),
      error: InvalidOptionError,
      field: 'options.actor',
    },
    {
      name: 'an actor too long, on a purge',
      call: (tm) => tm.removeJobs({ actor: 'x'.repeat(201) }),
      error: InvalidOptionError,
      field: 'options.actor',
    },
  ],
  removeJobs: [
    {
      name: 'options not an object',
      call: (tm) => tm.removeJobs(5 as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'in-flight status',
      call: (tm) => tm.removeJobs({ statuses: ['pending'] }),
      error: InvalidOptionError,
      field: 'statuses[0]',
    },
    {
      name: 'unknown status',
      call: (tm) => tm.removeJobs({ statuses: ['done'] }),
      error: InvalidOptionError,
      field: 'statuses[0]',
    },
    {
      name: 'statuses a string',
      call: (tm) => tm.removeJobs({ statuses: 'completed' as never }),
      error: InvalidOptionError,
      field: 'statuses',
    },
    {
      name: 'statuses empty',
      call: (tm) => tm.removeJobs({ statuses: [] }),
      error: InvalidOptionError,
      field: 'statuses',
    },
    {
      name: 'olderThanSeconds negative',
      call: (tm) => tm.removeJobs({ olderThanSeconds: -1 }),
      error: InvalidOptionError,
      field: 'olderThanSeconds',
    },
    {
      name: 'batchSize 0',
      call: (tm) => tm.removeJobs({ batchSize: 0 }),
      error: InvalidOptionError,
      field: 'batchSize',
    },
    {
      name: 'batchSize fractional',
      call: (tm) => tm.removeJobs({ batchSize: 2.5 }),
      error: InvalidOptionError,
      field: 'batchSize',
    },
    {
      name: 'queue a number',
      call: (tm) => tm.removeJobs({ queue: 5 as never }),
      error: InvalidOptionError,
      field: 'queue',
    },
    {
      name: 'dryRun a string',
      call: (tm) => tm.removeJobs({ dryRun: 'yes' as never }),
      error: InvalidOptionError,
      field: 'dryRun',
    },
    {
      name: 'onProgress not a function',
      call: (tm) => tm.removeJobs({ onProgress: 5 as never }),
      error: InvalidOptionError,
      field: 'onProgress',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.removeJobs({ bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  signal: [
    ...badIds((tm, id) => tm.signal(id, 'go', null), 'jobId'),
    {
      name: 'empty name',
      call: (tm, f) => tm.signal(f.pending, '', null),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'name a number',
      call: (tm, f) => tm.signal(f.pending, 5 as never, null),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'payload a BigInt',
      call: (tm, f) => tm.signal(f.pending, 'go', 1n),
      error: InvalidOptionError,
      field: 'payload',
    },
    {
      name: 'payload with a cycle',
      call: (tm, f) => tm.signal(f.pending, 'go', cycle),
      error: InvalidOptionError,
      field: 'payload.self',
    },
    {
      name: 'payload over MAX_PAYLOAD_BYTES',
      call: (tm, f) => tm.signal(f.pending, 'go', oversized),
      error: InvalidOptionError,
      field: 'payload',
    },
    {
      name: 'payload with a lone surrogate',
      call: (tm, f) => tm.signal(f.pending, 'go', '\udfff'),
      error: InvalidOptionError,
      field: 'payload',
    },
  ],
  schedule: [
    {
      name: 'not an object',
      call: (tm) => tm.schedule(5 as never),
      error: InvalidOptionError,
      field: 'schedule',
    },
    {
      name: 'empty name',
      call: (tm) => tm.schedule({ name: '', cron: '* * * * *', queue: 'known' }),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'name with NUL',
      call: (tm) => tm.schedule({ name: 'a\u0000', cron: '* * * * *', queue: 'known' }),
      error: InvalidOptionError,
      field: 'name',
    },
    {
      name: 'cron minute 61',
      call: (tm) => tm.schedule({ name: 's', cron: '61 * * * *', queue: 'known' }),
      error: InvalidOptionError,
      field: 'cron',
    },
    {
      name: 'cron words',
      call: (tm) => tm.schedule({ name: 's', cron: 'every day', queue: 'known' }),
      error: InvalidOptionError,
      field: 'cron',
    },
    {
      name: 'cron empty',
      call: (tm) => tm.schedule({ name: 's', cron: '', queue: 'known' }),
      error: InvalidOptionError,
      field: 'cron',
    },
    {
      name: 'cron a number',
      call: (tm) => tm.schedule({ name: 's', cron: 5 as never, queue: 'known' }),
      error: InvalidOptionError,
      field: 'cron',
    },
    {
      name: 'timezone unknown',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'known', timezone: 'Mars/Olympus' }),
      error: InvalidOptionError,
      field: 'timezone',
    },
    {
      name: 'timezone a number',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'known', timezone: 5 as never }),
      error: InvalidOptionError,
      field: 'timezone',
    },
    {
      name: 'unknown queue',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'nope' }),
      error: QueueNotFoundError,
    },
    {
      name: 'data a BigInt',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'known', data: 1n }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data over MAX_PAYLOAD_BYTES',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'known', data: oversized }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'data with a lone surrogate',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'known', data: '\ud800' }),
      error: InvalidOptionError,
      field: 'data',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.schedule({ name: 's', cron: '* * * * *', queue: 'known', bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  unschedule: [
    { name: 'empty name', call: (tm) => tm.unschedule(''), error: InvalidOptionError, field: 'name' },
    {
      name: 'name a number',
      call: (tm) => tm.unschedule(5 as never),
      error: InvalidOptionError,
      field: 'name',
    },
    { name: 'unknown schedule', call: (tm) => tm.unschedule('never-made'), error: ScheduleNotFoundError },
  ],
  sweep: [
    {
      name: 'options not an object',
      call: (tm) => tm.sweep(5 as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'batchSize 0',
      call: (tm) => tm.sweep({ batchSize: 0 }),
      error: InvalidOptionError,
      field: 'batchSize',
    },
    {
      name: 'batchSize fractional',
      call: (tm) => tm.sweep({ batchSize: 1.5 }),
      error: InvalidOptionError,
      field: 'batchSize',
    },
    {
      name: 'batchSize a string',
      call: (tm) => tm.sweep({ batchSize: 'x' as never }),
      error: InvalidOptionError,
      field: 'batchSize',
    },
    {
      name: 'dryRun a string',
      call: (tm) => tm.sweep({ dryRun: 'yes' as never }),
      error: InvalidOptionError,
      field: 'dryRun',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.sweep({ bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  pauseRetention: [
    {
      name: 'no options',
      call: (tm) => tm.pauseRetention(undefined as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'no reason',
      call: (tm) => tm.pauseRetention({} as never),
      error: InvalidOptionError,
      field: 'reason',
    },
    {
      name: 'empty reason',
      call: (tm) => tm.pauseRetention({ reason: '' }),
      error: InvalidOptionError,
      field: 'reason',
    },
    {
      name: 'reason with NUL',
      call: (tm) => tm.pauseRetention({ reason: 'a\u0000b' }),
      error: InvalidOptionError,
      field: 'reason',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.pauseRetention({ reason: 'x', bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  holdJobs: [
    {
      name: 'no options',
      call: (tm) => tm.holdJobs(5 as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'no target',
      call: (tm) => tm.holdJobs({ reason: 'x' }),
      error: InvalidOptionError,
      field: 'ids',
    },
    {
      name: 'no reason',
      call: (tm, f) => tm.holdJobs({ ids: [f.completed] } as never),
      error: InvalidOptionError,
      field: 'reason',
    },
    {
      name: 'ids not an array',
      call: (tm, f) => tm.holdJobs({ ids: f.completed as never, reason: 'x' }),
      error: InvalidOptionError,
      field: 'ids',
    },
    ...badIds((tm, id) => tm.holdJobs({ ids: [id], reason: 'x' }), 'ids[0]'),
    {
      name: 'a missing job among the ids',
      call: (tm, f) => tm.holdJobs({ ids: [f.completed, f.missing], reason: 'x' }),
      error: JobNotFoundError,
    },
    {
      name: 'unknown queue',
      call: (tm) => tm.holdJobs({ queue: 'unknown', reason: 'x' }),
      error: QueueNotFoundError,
    },
    {
      name: 'unknown option',
      call: (tm) => tm.holdJobs({ queue: 'known', reason: 'x', bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  releaseHold: [
    ...badIds((tm, id) => tm.releaseHold(id), 'holdId'),
    { name: 'missing hold', call: (tm, f) => tm.releaseHold(f.missing), error: HoldNotFoundError },
  ],
  applyRetention: [
    {
      name: 'no options',
      call: (tm) => tm.applyRetention(5 as never),
      error: InvalidOptionError,
      field: 'options',
    },
    {
      name: 'no queue',
      call: (tm) => tm.applyRetention({} as never),
      error: InvalidOptionError,
      field: 'queue',
    },
    {
      name: 'unknown queue',
      call: (tm) => tm.applyRetention({ queue: 'unknown' }),
      error: QueueNotFoundError,
    },
    {
      name: 'bad policy',
      call: (tm) => tm.applyRetention({ queue: 'known', policy: { completed: 1.5 } }),
      error: InvalidRetentionPolicyError,
      field: 'policy.completed',
    },
    {
      name: 'batchSize 0',
      call: (tm) => tm.applyRetention({ queue: 'known', batchSize: 0 }),
      error: InvalidOptionError,
      field: 'batchSize',
    },
    {
      name: 'dryRun a number',
      call: (tm) => tm.applyRetention({ queue: 'known', dryRun: 1 as never }),
      error: InvalidOptionError,
      field: 'dryRun',
    },
    {
      name: 'unknown option',
      call: (tm) => tm.applyRetention({ queue: 'known', bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  worker: [
    {
      name: 'not an object',
      call: (tm) => tm.worker(5 as never),
      error: InvalidOptionError,
      field: 'worker',
    },
    {
      name: 'concurrency 0',
      call: (tm) => tm.worker({ concurrency: 0 }),
      error: InvalidOptionError,
      field: 'concurrency',
    },
    {
      name: 'queues empty',
      call: (tm) => tm.worker({ queues: [] }),
      error: InvalidOptionError,
      field: 'queues',
    },
    {
      name: 'queues a string',
      call: (tm) => tm.worker({ queues: 'known' as never }),
      error: InvalidOptionError,
      field: 'queues',
    },
    {
      name: 'unknown queue',
      call: (tm) => tm.worker({ queues: ['nope'] }),
      error: InvalidOptionError,
      field: 'queues[0]',
    },
    {
      name: 'queue without a handler here',
      call: (tm) => tm.worker({ queues: ['known'] }),
      error: InvalidOptionError,
      field: 'queues[0]',
    },
    {
      name: 'sweep batchSize 0',
      call: (tm) => tm.worker({ sweep: { batchSize: 0 } }),
      error: InvalidOptionError,
      field: 'sweep.batchSize',
    },
    {
      name: 'sweep interval 0',
      call: (tm) => tm.worker({ sweep: { intervalSeconds: 0 } }),
      error: InvalidOptionError,
      field: 'sweep.intervalSeconds',
    },
    {
      name: 'sweep a string',
      call: (tm) => tm.worker({ sweep: 'off' as never }),
      error: InvalidOptionError,
      field: 'sweep',
    },
    {
      name: 'uniqueLockSweep batchSize negative',
      call: (tm) => tm.worker({ uniqueLockSweep: { batchSize: -1 } }),
      error: InvalidOptionError,
      field: 'uniqueLockSweep.batchSize',
    },
    {
      name: 'lockSeconds 0',
      call: (tm) => tm.worker({ lockSeconds: 0 }),
      error: InvalidOptionError,
      field: 'lockSeconds',
    },
    {
      name: 'tickIntervalSeconds 0',
      call: (tm) => tm.worker({ tickIntervalSeconds: 0 }),
      error: InvalidOptionError,
      field: 'tickIntervalSeconds',
    },
    {
      name: 'pollIntervalSeconds negative',
      call: (tm) => tm.worker({ pollIntervalSeconds: -1 }),
      error: InvalidOptionError,
      field: 'pollIntervalSeconds',
    },
    {
      name: 'shutdownTimeoutSeconds negative',
      call: (tm) => tm.worker({ shutdownTimeoutSeconds: -1 }),
      error: InvalidOptionError,
      field: 'shutdownTimeoutSeconds',
    },
    {
      name: 'fetchBatchSize 0',
      call: (tm) => tm.worker({ fetchBatchSize: 0 }),
      error: InvalidOptionError,
      field: 'fetchBatchSize',
    },
    { name: 'empty id', call: (tm) => tm.worker({ id: '' }), error: InvalidOptionError, field: 'id' },
    {
      name: 'unknown option',
      call: (tm) => tm.worker({ bogus: 1 } as never),
      error: InvalidOptionError,
      field: 'bogus',
    },
  ],
  pauseQueue: [
    { name: 'empty name', call: (tm) => tm.pauseQueue(''), error: InvalidOptionError, field: 'name' },
    {
      name: 'name a number',
      call: (tm) => tm.pauseQueue(5 as never),
      error: InvalidOptionError,
      field: 'name',
    },
    { name: 'unknown queue', call: (tm) => tm.pauseQueue('nope'), error: QueueNotFoundError },
  ],
  resumeQueue: [
    { name: 'empty name', call: (tm) => tm.resumeQueue(''), error: InvalidOptionError, field: 'name' },
    { name: 'unknown queue', call: (tm) => tm.resumeQueue('nope'), error: QueueNotFoundError },
  ],
};

/** Ids that are not job ids: wrong types, zero, negative, fractional, padded, past int8. */
function badIds(call: (tm: Tidemark, id: never) => unknown, field: string): Case[] {
  const ids: [string, unknown][] = [
    ['a word', 'abc'],
    ['negative', -1],
    ['fractional', 1.5],
    ['zero', '0'],
    ['zero-padded', '01'],
    ['null', null],
    ['an object', {}],
    ['above the int8 range', '9999999999999999999'],
  ];
  return ids.map(([name, id]) => ({
    name: `id ${name}`,
    call: (tm: Tidemark) => call(tm, id as never),
    error: InvalidOptionError,
    field,
  }));
}

/** Open on the test's own database and schema with one option changed. */
function openWith(f: Fixture, change: Record<string, unknown>): Promise<Tidemark> {
  return Tidemark.open({ database: f.database, schema: currentSchema, ...change } as never);
}
let currentSchema = '';

/** Run one case; returns what was wrong with the outcome, or null. */
async function check(tm: Tidemark, c: Case, fixture: Fixture, sql: RunSql): Promise<string | null> {
  const before = await rowCounts(sql, tm.schema);
  let caught: unknown = null;
  let timer: NodeJS.Timeout | undefined;
  // A refusal is immediate; a call still pending after this long did not refuse (it hangs).
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), 20_000);
  });
  try {
    const value = await Promise.race([Promise.resolve().then(() => c.call(tm, fixture)), hung]);
    if (value === 'hung') return 'still pending after 20 s instead of refusing';
    if (value instanceof Tidemark) await value.close();
  } catch (error) {
    caught = error;
  } finally {
    clearTimeout(timer);
  }
  if (!caught) return 'accepted';
  if (!(caught instanceof TidemarkError)) return `untyped error ${String(caught)}`;
  if (!(caught instanceof c.error)) {
    const got = caught as TidemarkError;
    return `expected ${c.error.name}, got ${got.name}: ${got.message}`;
  }
  if (caught instanceof InvalidOptionError && caught.field !== c.field) {
    return `field '${caught.field}' instead of '${c.field}' (${caught.message})`;
  }
  const after = await rowCounts(sql, tm.schema);
  if (JSON.stringify(after) !== JSON.stringify(before)) return `rows written: ${JSON.stringify(after)}`;
  return null;
}

describeEachDriver('bad input to every public method', ({ kind, open }) => {
  test('each bad call gets a typed error naming the field, and writes nothing', async (t) => {
    const tm = await open({ schema: faultSchema() });
    currentSchema = tm.schema;
    tm.createQueue({ name: 'known', signals: { go: 1 } });
    await tm.listQueues();
    const [parent] = await insertTree(tm, { queue: 'known', status: 'completed' }, [
      { queue: 'known', status: 'completed' },
    ]);
    const [inFlightTree] = await insertTree(tm, { queue: 'known', status: 'completed' }, [
      { queue: 'known', status: 'pending' },
    ]);
    const fixture: Fixture = {
      pending: (await tm.addJob({ queue: 'known' })).id,
      completed: await insertJob(tm, { queue: 'known', status: 'completed' }),
      parent,
      inFlightTree,
      missing: '987654321',
      database: kind === 'pg' ? PG_URL : await sharedPgliteInstance(),
    };
    const sql = sqlOf(tm);
    const before = await rowCounts(sql, tm.schema);
    // One loop rather than subtests: the per-test hooks that close engines would run after each.
    let count = 0;
    const failures: string[] = [];
    for (const [method, list] of Object.entries(cases)) {
      for (const c of list) {
        count++;
        const problem = await check(tm, c, fixture, sql);
        if (problem) failures.push(`${method}: ${c.name}: ${problem}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(await rowCounts(sql, tm.schema), before);
    t.diagnostic(`${count} bad calls over ${Object.keys(cases).length} methods`);
  });

  test('refused signals write nothing: unknown signal, missing job, finished job', async () => {
    const tm = await open({ schema: faultSchema() });
    tm.createQueue({ name: 'known', signals: { go: 1 } });
    const { id } = await tm.addJob({ queue: 'known' });
    const done = await insertJob(tm, { queue: 'known', status: 'completed' });
    const sql = sqlOf(tm);
    const before = await rowCounts(sql, tm.schema);
    assert.deepEqual(await tm.signal(id, 'undeclared', 1), { delivered: false, reason: 'unknown-signal' });
    assert.deepEqual(await tm.signal('987654321', 'go', 1), { delivered: false, reason: 'job-not-found' });
    assert.deepEqual(await tm.signal(done, 'go', 1), { delivered: false, reason: 'job-finished' });
    assert.deepEqual(await rowCounts(sql, tm.schema), before);
  });

  test('a workflow waiting for a signal its queue does not declare fails with UnknownSignalError', async () => {
    const tm = await open({ schema: faultSchema() });
    tm.createQueue({
      name: 'flow',
      maxAttempts: 1,
      signals: { go: 1 },
      handler: async (_job, ctx) => ctx.waitForSignal('undeclared'),
    });
    const worker = fastWorker(tm);
    await worker.start();
    const { id } = await tm.addJob({ queue: 'flow' });
    const job = await waitForStatus(tm, id, 'failed');
    await worker.stop();
    assert.equal(job.error?.name, UnknownSignalError.name);
  });

  test('payloads of exactly MAX_PAYLOAD_BYTES, and text that only looks like an escape, are stored whole', async () => {
    const tm = await open({ schema: faultSchema() });
    tm.createQueue({ name: 'known' });
    // A JSON string of n characters is n + 2 bytes with its quotes.
    const big = 'y'.repeat(MAX_PAYLOAD_BYTES - 2);
    const { id } = await tm.addJob({ queue: 'known', data: big });
    assert.equal((await tm.getJob(id))?.data, big);
    const text = { path: 'C:\\u0000dir', escape: '\\ud800', pair: '\u{1F600}', when: new Date(0) };
    const second = await tm.addJob({ queue: 'known', data: text, unique: 'k\u{1F600}' });
    assert.deepEqual((await tm.getJob(second.id))?.data, JSON.parse(JSON.stringify(text)));
  });
});
