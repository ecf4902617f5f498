import type { JobStatus } from '../job-status.js';
import type { FrozenRetention, Job } from '../model/job.js';
import type { CheckpointRow, SignalRow } from '../model/workflow.js';
import type { Timestamp } from './sql/columns.js';
import type { CoreJobColumns, JobRow } from './sql/job-columns.js';
import type { ClaimedJobRow, RareClaimColumns } from './sql/worker.js';
import type { StoredCheckpoint, StoredSignal } from './sql/workflow.js';

export type { FrozenRetention, Job, JobError } from '../model/job.js';

// Shared by every job without tags or metadata: most jobs have neither, and a claim makes many.
const NO_TAGS: readonly string[] = Object.freeze([]);
const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

/** A job read from storage, every column as stored. */
export function toJob(row: JobRow): Job {
  return jobOf(
    row,
    row,
    row.started_at,
    row.retention ?? {},
    row.status,
    toDate(row.finished_at),
    row.locked_by ?? null,
    toDate(row.locked_until),
    toDate(row.purge_after),
    row.version ?? null,
  );
}

/** The rare columns of a claimed row that has none of them set. */
const NO_RARE_COLUMNS: Readonly<RareClaimColumns> = Object.freeze({});

/**
 * A row the claim just made `active` (see claimJobs): the claim does not return what it
 * implies, so its status, owner and lock expiry are filled in here, and its finish and
 * purge times are null. Its retention (JSON text) and start time are the claim's lead row's
 * where the row does not carry its own.
 */
export function toClaimedJob(
  row: ClaimedJobRow,
  retention: string,
  startedAt: number,
  workerId: string,
  lockSeconds: number,
): Job {
  return jobOf(
    row,
    row.rare ?? NO_RARE_COLUMNS,
    startedAt,
    retentionOf(retention),
    'active',
    null,
    workerId,
    new Date(startedAt + lockSeconds * 1000),
    null,
    null,
  );
}

/** Frozen retentions by their JSON text: the jobs of a claim nearly always share a few. */
const retentions = new Map<string, FrozenRetention>();
const RETENTIONS_KEPT = 64;

/** A job's frozen retention from its JSON text, parsed once for every job that has the same. */
function retentionOf(text: string): FrozenRetention {
  let retention = retentions.get(text);
  if (retention === undefined) {
    if (retentions.size >= RETENTIONS_KEPT) retentions.clear();
    // Shared by many jobs, so frozen: its windows are numbers, one level deep.
    retention = Object.freeze(JSON.parse(text) as FrozenRetention);
    retentions.set(text, retention);
  }
  return retention;
}

/**
 * Every field of `Job` in one literal, the fields a read and a claim differ in passed as
 * values. Not an object spread of shared fields into a literal: that made each claimed job a
 * dictionary-mode object of about 4 KB (measured with V8's sampling heap profiler), about
 * half of a no-op job's worker CPU in allocation and collection. A read passes its row as
 * `rare`; a claim, the JSON object its rare columns came in.
 */
function jobOf(
  row: CoreJobColumns & {
    run_at: Timestamp;
    expire_at: Timestamp | null;
    created_at: Timestamp;
  },
  rare: RareClaimColumns,
  startedAt: Timestamp | null,
  retention: FrozenRetention,
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
    output: rare.output ?? null,
    error: rare.error ?? null,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    priority: Number(row.priority),
    runAt: toDate(row.run_at),
    expireAt: toDate(row.expire_at),
    createdAt: toDate(row.created_at),
    startedAt: toDate(startedAt),
    parentId: rare.parent_id == null ? null : String(rare.parent_id),
    rootId: rare.root_id == null ? null : String(rare.root_id),
    retention,
    key: rare.key ?? null,
    tier: rare.tier ?? null,
    tags: rare.tags ?? NO_TAGS,
    progress: rare.progress ?? null,
    metadata: rare.metadata ?? NO_METADATA,
    trace: rare.trace ?? null,
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
