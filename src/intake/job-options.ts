import { Type } from '@sinclair/typebox';
import { MAX_DEPENDENCIES } from '../model/dependencies.js';
import { MAX_ATTEMPTS, PRIORITY } from '../model/job-rules.js';
import { either, integer, literal, object, STORABLE_TEXT, seconds, text } from '../options/fields.js';
import { OptionSet } from '../options/option-set.js';
import { dateField, idsField, jsonDataField, retentionField, tagsField } from '../options/shared-fields.js';

/** The longest concurrency key accepted, in characters. */
export const MAX_KEY_LENGTH = 512;

/** The longest delay accepted: about 100 years. */
const MAX_DELAY_SECONDS = 3_153_600_000;

/**
 * A job's options, declared once: `tm.addJob`'s and `tm.addJobs`'s input, and through
 * `childOptions` those of `ctx.runChild`. Every way a job comes in reads its request with these.
 */
export const jobOptions = new OptionSet(
  'job',
  {
    queue: text(200, { description: 'the queue to add to' }),
    data: jsonDataField({
      description:
        "the job's input, at most 1 MiB of JSON text nested at most 200 levels (`MAX_PAYLOAD_BYTES`, `MAX_JSON_DEPTH`; PostgreSQL's jsonb parser gives out past a few thousand); functions, `BigInt`, cycles and `NaN` are refused, as is a value whose getter, Proxy trap or `toJSON` throws (with that error as `cause`)",
    }),
    delaySeconds: seconds(
      { max: MAX_DELAY_SECONDS },
      {
        description: 'run no earlier than this many seconds from now; not with `runAt`',
        docDefault: '`0`',
        column: 'delay_seconds',
      },
    ),
    runAt: dateField({
      description: 'run no earlier than this moment; not with `delaySeconds`',
      docDefault: 'now',
    }),
    priority: integer(PRIORITY.min, PRIORITY.max, {
      default: PRIORITY.default,
      description: 'higher runs first',
    }),
    maxAttempts: integer(MAX_ATTEMPTS.min, MAX_ATTEMPTS.max, {
      description: "overrides the queue's for this job",
      docDefault: "the queue's",
      column: 'max_attempts',
    }),
    expireInSeconds: seconds(
      { exclusiveMin: true },
      {
        description:
          'not started this long after its run time: the job becomes `expired` (by the maintenance tick)',
        column: 'expire_in_seconds',
      },
    ),
    idempotencyKey: object(
      {
        key: text(255, { description: 'the key' }),
        ttlSeconds: seconds({ exclusiveMin: true }, { description: 'how long the key holds' }),
      },
      {
        required: ['key', 'ttlSeconds'],
        docType: '`{ key: string; ttlSeconds: number }`',
        description:
          "an add with the same key on the same queue within `ttlSeconds` returns the first job's id with `deduplicated: true`; `key` up to 255 characters",
      },
    ),
    uniqueFor: seconds(
      { exclusiveMin: true },
      {
        description:
          'the same, keyed on the queue and the data (keys in any order); not with `idempotencyKey`',
      },
    ),
    unique: either([Type.Boolean(), Type.String({ minLength: 1, maxLength: 255, pattern: STORABLE_TEXT })], {
      expected: 'true, false or a key of 1-255 characters',
      docType: '`boolean \\| string`',
      docDefault: '`false`',
      description:
        'at most one in-flight job per key on the queue: `true` keys on the data, a string (1 to 255 characters) is the key; not with `idempotencyKey` or `uniqueFor`',
    }),
    retention: retentionField({
      description: "this job's policy; replaces the queue's",
      docDefault: "none: the queue's",
    }),
    debounce: object(
      {
        key: text(MAX_KEY_LENGTH, {
          description: 'the key: adds to the queue under one key fold into one job',
        }),
        seconds: seconds(
          { exclusiveMin: true, max: MAX_DELAY_SECONDS },
          { description: 'the window: with `trailing`, the job runs this long after the last add' },
        ),
        maxWaitSeconds: seconds(
          { exclusiveMin: true, max: MAX_DELAY_SECONDS },
          {
            description: 'with `trailing`, the job runs at most this long after the first add',
            docDefault: 'no bound',
          },
        ),
        mode: either([literal('trailing'), literal('leading')], {
          expected: "'trailing' or 'leading'",
          docType: "`'trailing' \\| 'leading'`",
          docDefault: "`'trailing'`",
          description:
            "`trailing`: one pending job per key takes each add's data and runs `seconds` after the last; `leading`: the first add runs now and adds within `seconds` of it fold into it",
        }),
      },
      {
        required: ['key', 'seconds'],
        docType:
          "`{ key: string; seconds: number; maxWaitSeconds?: number; mode?: 'trailing' \\| 'leading' }`",
        description:
          'collapse a burst of adds with one key into one job (see [flow-control.md](flow-control.md)); the result says `debounced: true` when the add folded into an earlier job; not with `runAt`, `delaySeconds`, `throttle`, `idempotencyKey`, `uniqueFor` or `unique`',
      },
    ),
    throttle: object(
      {
        key: text(MAX_KEY_LENGTH, { description: 'the key: jobs of one key start at most once per period' }),
        seconds: seconds(
          { exclusiveMin: true, max: MAX_DELAY_SECONDS },
          {
            description: "the period: a job of the key starts at least this long after the last one's start",
          },
        ),
      },
      {
        required: ['key', 'seconds'],
        docType: '`{ key: string; seconds: number }`',
        description:
          'at most one start per period per key: an add while a job of the key waits folds into it (`throttled: true`), else it adds the next job, due a period after the last start (see [flow-control.md](flow-control.md)); not with `runAt`, `debounce`, `idempotencyKey`, `uniqueFor` or `unique`',
      },
    ),
    key: text(MAX_KEY_LENGTH, {
      description:
        "the job's concurrency key (`tenant:acme`): the queue's `keys` rule, or the key's override, limits how many jobs of one key run at once across the cluster (see [flow-control.md](flow-control.md))",
      column: 'key',
    }),
    tier: text(200, {
      description:
        "the key's tier, one of the queue's `keys.concurrency.tiers`: the limit this job runs under",
      docDefault: "none: the queue's default limit",
      column: 'tier',
    }),
    tags: tagsField(
      'labels to find the job by: `tm.listJobs({ tags })`, the bulk actions and the dashboard filter by them',
      'tags',
    ),
    dependsOn: idsField(
      MAX_DEPENDENCIES,
      'jobs that exist already: this job waits (`waiting`) until every one has finished, then runs; `ctx.dependencies()` reads their outputs (see [dependencies.md](dependencies.md)); not with `debounce` or `throttle`, not on a workflow child or a schedule',
    ),
    onDependencyFailure: either([literal('fail'), literal('cancel'), literal('run')], {
      expected: "'fail', 'cancel' or 'run'",
      docType: "`'fail' \\| 'cancel' \\| 'run'`",
      docDefault: "`'fail'`",
      description:
        'with `dependsOn`: when a dependency ends `failed`, `cancelled` or `expired`, this job fails at once (`fail`, with a `DependencyFailedError` naming it), is cancelled at once (`cancel`), or runs when the others have finished (`run`)',
    }),
  },
  ['queue'],
);

/** The options `ctx.runChild(queue, data, options)` takes: a child's place is its parent's step. */
export const childOptions = jobOptions.pick('options', [
  'priority',
  'maxAttempts',
  'delaySeconds',
  'retention',
  'key',
  'tier',
  'tags',
]);

/** A job's options once read: checked, with data as JSON text and retention frozen. */
export type ReadJobOptions = ReturnType<typeof jobOptions.read>;
