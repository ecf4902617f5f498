import type { JobStatus } from '../job-status.js';
import type { Job } from '../model/job.js';
import type { CheckpointRow, SignalRow } from '../model/workflow.js';
import type { Timestamp } from './sql/columns.js';
import type { JobRow, PlainJobColumns } from './sql/job-columns.js';
import type { ClaimedJobRow } from './sql/worker.js';
import type { StoredCheckpoint, StoredSignal } from './sql/workflow.js';

export type { FrozenRetention, Job, JobError } from '../model/job.js';

// Shared by every job without tags or metadata: most jobs have neither, and a claim makes many.
const NO_TAGS: readonly string[] = Object.freeze([]);
const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

/** A job read from storage, every column as stored. */
export function toJob(row: JobRow): Job {
  return jobOf(
    row,
    row.status,
    toDate(row.finished_at),
    row.locked_by ?? null,
    toDate(row.locked_until),
    toDate(row.purge_after),
    row.version ?? null,
  );
}

/**
 * A row the claim just made `active` (see claimJobs): the claim does not return what it
 * implies, so its status, owner and lock expiry are filled in here, and its finish and
 * purge times are null.
 */
export function toClaimedJob(row: ClaimedJobRow, workerId: string, lockSeconds: number): Job {
  return jobOf(row, 'active', null, workerId, new Date(row.started_at + lockSeconds * 1000), null, null);
}

/**
 * Every field of `Job` in one literal, the fields a read and a claim differ in passed as
 * values. Not an object spread of shared fields into a literal: that made each claimed job a
 * dictionary-mode object of about 4 KB (measured with V8's sampling heap profiler), about
 * half of a no-op job's worker CPU in allocation and collection.
 */
function jobOf(
  row: PlainJobColumns & {
    run_at: Timestamp;
    expire_at: Timestamp | null;
    created_at: Timestamp;
    started_at: Timestamp | null;
  },
  status: JobStatus,
  finishedAt: Date | null,
  lockedBy: string | null,
  lockedUntil: Date | null,
  purgeAfter: Date | null,
  version: string | null,
): Job {
  return {
    id: String(row.id),
    queue: row.queue,
    data: row.data,
    output: row.output ?? null,
    error: row.error ?? null,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    priority: Number(row.priority),
    runAt: toDate(row.run_at),
    expireAt: toDate(row.expire_at),
    createdAt: toDate(row.created_at),
    startedAt: toDate(row.started_at),
    parentId: row.parent_id == null ? null : String(row.parent_id),
    rootId: row.root_id == null ? null : String(row.root_id),
    retention: row.retention ?? {},
    key: row.key ?? null,
    tier: row.tier ?? null,
    tags: row.tags ?? NO_TAGS,
    progress: row.progress ?? null,
    metadata: row.metadata ?? NO_METADATA,
    trace: row.trace ?? null,
    status,
    finishedAt,
    lockedBy,
    lockedUntil,
    purgeAfter,
    version,
  };
}

export function toCheckpoint(row: StoredCheckpoint): CheckpointRow {
  return {
    name: row.name,
    kind: row.kind,
    output: row.output,
    createdAt: row.created_at,
    seq: row.seq ?? null,
  };
}

export function toSignal(row: StoredSignal): SignalRow {
  return {
    id: String(row.id),
    name: row.name,
    payload: row.payload,
    createdAt: row.created_at,
    consumedAt: row.consumed_at ?? null,
    consumedBy: row.consumed_by ?? null,
    purgeAfter: row.purge_after ?? null,
    state: row.consumed_at ? 'consumed' : 'pending',
  };
}

/** Timestamps arrive as Date on both drivers; `infinity` arrives as a string or Infinity. */
export function toDate(value: Timestamp): Date;
export function toDate(value: Timestamp | null | undefined): Date | null;
export function toDate(value: Timestamp | null | undefined): Date | null {
  if (value == null) return null;
  if (value instanceof Date) return value;
  if (value === 'infinity' || value === Number.POSITIVE_INFINITY) return new Date(8.64e15);
  if (value === '-infinity' || value === Number.NEGATIVE_INFINITY) return new Date(-8.64e15);
  return new Date(value);
}
