import type { JobStatus } from '../../job-status.js';
import type { FrozenRetention, JobError } from '../../model/job.js';
import type { JobTrace } from '../../model/tracing.js';
import type { Timestamp } from './columns.js';
import { MAX_ATTEMPTS_OF_QUEUE, type QueueDefaultParams, RETENTION_OF_QUEUE } from './stored-queue.js';

/*
 * A job's columns, written once: how every way in writes them (a batch add, an add behind a
 * unique lock, a workflow child, a schedule fire: one family of insert statements over one
 * input row) and how every read returns them. A new job field is a column here, a field of
 * InsertRow and of the rows read, and nothing else in SQL.
 */

/** Columns returned as they are stored, by a job read and by a claim alike. */
export const PLAIN_COLUMNS = `id, queue, data, output, error, priority, attempts, max_attempts, parent_id,
  root_id, retention, key, tier, tags, progress, metadata, trace`;

/** What PLAIN_COLUMNS read; ids are bigint, so strings. */
export interface PlainJobColumns {
  id: string;
  queue: string;
  data: unknown;
  output: unknown;
  error: JobError | null;
  priority: number;
  attempts: number;
  max_attempts: number;
  parent_id: string | null;
  root_id: string | null;
  retention: FrozenRetention;
  key: string | null;
  tier: string | null;
  tags: string[] | null;
  progress: number | Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  trace: JobTrace | null;
}

/** The columns every job has a value in, which a claim returns as they are. */
export type CoreJobColumns = Pick<
  PlainJobColumns,
  'id' | 'queue' | 'data' | 'priority' | 'attempts' | 'max_attempts'
>;

/** Columns every job read returns; mapped to `Job` by rows.ts. */
export const JOB_COLUMNS = `${PLAIN_COLUMNS}, status, run_at, expire_at, created_at, started_at, finished_at,
  parent_step, locked_by, locked_until, unique_key, wait, purge_after, log_dropped, version`;

/** A row of JOB_COLUMNS. */
export interface JobRow extends PlainJobColumns {
  status: JobStatus;
  run_at: Timestamp;
  expire_at: Timestamp | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  parent_step: string | null;
  locked_by: string | null;
  locked_until: Timestamp | null;
  unique_key: string | null;
  wait: Record<string, unknown> | null;
  purge_after: Timestamp | null;
  log_dropped: number | null;
  version: string | null;
}

/**
 * One job to insert, resolved and checked: the fields of an input row, as JSON keys. Absent
 * `max_attempts` or `retention`: the queue's stored option, read by the insert (the queue
 * is not defined in the process adding the job), else the engine's default.
 */
export interface InsertRow {
  queue: string;
  /** The job's data as JSON text (already checked), embedded as it is. */
  dataText: string;
  priority: number;
  max_attempts?: number;
  run_at?: string;
  delay_seconds?: number;
  expire_in_seconds?: number;
  retention?: FrozenRetention;
  unique_key?: string;
  parent_id?: string;
  root_id?: string;
  parent_step?: string;
  key?: string;
  tier?: string;
  /** `debounce:<key>` or `throttle:<key>`: the key the job was added under (migration 9). */
  fold_key?: string;
  tags?: string[];
  /** The trace context the job was added in (tracing on, inside a span). */
  trace?: JobTrace;
  /** Its queue's `version` where it was added. */
  version?: string;
  /** The job a fork was made from (`tm.forkJob`). */
  forked_from?: string;
}

/**
 * The input row's fields other than data and retention (written separately), with their SQL
 * types: insertRowJson writes these keys, and INPUT_ROW reads them back.
 */
export const INPUT_FIELDS = {
  queue: 'text',
  priority: 'int',
  max_attempts: 'int',
  run_at: 'timestamptz',
  delay_seconds: 'float8',
  expire_in_seconds: 'float8',
  unique_key: 'text',
  parent_id: 'bigint',
  root_id: 'bigint',
  parent_step: 'text',
  key: 'text',
  tier: 'text',
  fold_key: 'text',
  tags: 'text[]',
  trace: 'jsonb',
  version: 'text',
  forked_from: 'bigint',
} as const satisfies Record<Exclude<keyof InsertRow, 'dataText' | 'retention'>, string>;

/**
 * The record an input row is read as. `idx` is its place in the batch; `policy` indexes
 * @policies, the batch's distinct frozen retention windows (a batch usually shares one, and
 * parsing it once instead of once per row is about a sixth of a bulk insert).
 */
const INPUT_ROW = `idx int, data jsonb, policy int, ${Object.entries(INPUT_FIELDS)
  .map(([name, type]) => `${name} ${type}`)
  .join(', ')}`;

/** The batch's input rows, as the relation `input`. */
export const INPUT_ROWS = `jsonb_to_recordset(@jobs::jsonb) as input(${INPUT_ROW})`;

/** Each input row's run time (`due.at`): its run_at, else now plus its delay. */
export const DUE_AT = /* sql */ `cross join lateral (
       select coalesce(input.run_at, now() + coalesce(input.delay_seconds, 0) * interval '1 second') as at) due`;

/** The columns an insert writes. */
export const INSERT_COLUMNS = `queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                parent_id, root_id, parent_step, key, tier, fold_key, tags, trace, version, forked_from`;

/** The values of INSERT_COLUMNS, from the input row `input` and its run time `due.at`. */
export const INSERT_VALUES = /* sql */ `input.queue, coalesce(input.data, 'null'::jsonb), input.priority, due.at,
           due.at + input.expire_in_seconds * interval '1 second',
           ${MAX_ATTEMPTS_OF_QUEUE('input.max_attempts', 'input.queue')},
           ${RETENTION_OF_QUEUE('@policies::jsonb -> input.policy', 'input.queue')},
           input.unique_key, input.parent_id, input.root_id, input.parent_step, input.key, input.tier, input.fold_key, input.tags, input.trace,
           input.version, input.forked_from`;

/** One NOTIFY per queue that received work ready now (from the CTE `inserted`); delivered at commit. */
export const NUDGE_READY_QUEUES = /* sql */ `nudged as (
    select count(pg_notify(@channel, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )`;

/** The parameters every statement of the insert family takes. */
export type InsertParams = QueueDefaultParams & {
  /** The input rows, a JSON array (see insertRowJson). */
  jobs: string;
  /** The distinct frozen retention windows the rows index, a JSON array. */
  policies: string;
  channel: string;
};
