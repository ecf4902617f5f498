import { RetentionPausedError } from '../errors.js';
import type { AuditEntry } from '../model/audit.js';
import { record as recordAudit } from './audit.js';
import type { TransactionHandle } from './driver/driver.js';
import { retryOnConflict, retryOnDeadlock } from './retry-deadlock.js';
import { type FrozenRetention, toDate } from './rows.js';
import type { Runner } from './runner.js';
import * as apply from './sql/apply-retention.js';
import type { ControlRow, HoldRow } from './sql/retention-controls.js';
import * as sql from './sql/retention-controls.js';

/** The cluster-wide pause switch, as stored. */
export interface PauseState {
  paused: boolean;
  reason: string | null;
  since: Date | null;
  /** `host:pid` of the process that paused. */
  pausedBy: string | null;
}

/** A retention hold, as `tm.listHolds()` returns it. */
export interface HoldRecord {
  id: string;
  reason: string;
  /** The held queue, for a queue hold (it covers the queue's jobs now and later); else null. */
  queue: string | null;
  /** Jobs the hold covers now: the jobs it names, plus its queue's jobs. */
  jobs: number;
  createdAt: Date;
  /** `host:pid` of the process that placed it. */
  createdBy: string | null;
}

/** What an explicit delete found: how many it deleted, or what kept the tree. */
export interface TreeDeletion {
  /** Jobs in the subtree (0: the job does not exist). */
  members: number;
  deleted: number;
  inFlight: { id: string; status: string } | null;
  ancestor: { id: string; status: string } | null;
  /** The top of the tree when the job is not itself a top. */
  top: { id: string; status: string } | null;
  hold: { id: string; reason: string } | null;
}

/*
 * The operator's retention controls: the pause switch, holds, re-freezing a queue's windows,
 * explicit deletes, and the gate that orders all of them against deletions (see
 * sql/retention-controls.ts).
 */

/** `gated` as its group exposes it, with its type parameter (a bound group's type drops it). */
export type Gated = <T>(fn: (tx: TransactionHandle) => Promise<T>, explicit?: boolean) => Promise<T>;

/**
 * Run a deletion in a transaction that holds the gate: a pause or a hold placed
 * meanwhile waits for it, and it sees every one committed before. Throws
 * RetentionPausedError (nothing done) while paused, unless `explicit` (a delete of
 * named jobs, which the pause does not stop).
 */
export function gated<T>(
  db: Runner,
  fn: (tx: TransactionHandle) => Promise<T>,
  explicit = false,
): Promise<T> {
  return db.driver.transaction(async (tx) => {
    const [row] = await db.run(sql.retentionGate, {}, tx);
    if (row?.paused && !explicit) {
      throw new RetentionPausedError(row.reason, toDate(row.paused_at));
    }
    return fn(tx);
  });
}

export async function status(db: Runner): Promise<PauseState & { holds: number }> {
  const [row] = await db.run(sql.readRetentionControl, {});
  return { ...toPause(row), holds: Number(row?.holds ?? 0) };
}

/** Pause; resolves once every deletion that was running has committed or rolled back. */
export async function pause(db: Runner, reason: string, by: string): Promise<PauseState> {
  const [row] = await db.run(sql.pauseRetention, { reason, by });
  return toPause(row);
}

export async function resume(db: Runner): Promise<PauseState> {
  const [row] = await db.run(sql.resumeRetention, {});
  return toPause(row);
}

/**
 * Place a hold on jobs by id and/or on a queue, after the deletions in progress. Ids
 * that name no job are returned as `missing`, and then nothing is written: the
 * transaction rolls back, the gate's version with it (deletions in flight do not run again).
 */
export async function placeHold(
  db: Runner,
  hold: HoldRequest,
  audit?: AuditEntry,
): Promise<{ holdId: string; jobs: number } | { missing: string[] }> {
  try {
    return await holdOrRollBack(db, hold, audit);
  } catch (error) {
    if (error instanceof MissingJobs) return { missing: error.missing };
    throw error;
  }
}

/** Release a hold; false when no hold has this id. */
export async function releaseHold(db: Runner, id: string): Promise<boolean> {
  return (await db.run(sql.deleteHold, { id })).length > 0;
}

export async function listHolds(db: Runner): Promise<HoldRecord[]> {
  return (await db.run(sql.listHolds, {})).map(toHold);
}

/** The holds that keep this job's tree. */
export async function holdsOfJob(db: Runner, id: string): Promise<HoldRecord[]> {
  return (await db.run(sql.holdsOfJob, { id })).map(toHold);
}

/**
 * Delete a job and its descendants (`single`: only a job without children) after the
 * gate and a lock on its tree's top, unless a member or an ancestor is in flight or a
 * hold keeps the tree. Not stopped by the pause. Run again when PostgreSQL aborts it to break
 * a deadlock with a finishing child (see retryOnDeadlock). `audit`, when given, is recorded in
 * the same transaction with the count deleted, only when something was.
 */
export function deleteTree(
  db: Runner,
  id: string,
  single: boolean,
  audit?: AuditEntry,
): Promise<TreeDeletion> {
  return retryOnDeadlock(() => deleteTreeOnce(db, id, single, audit));
}

function deleteTreeOnce(db: Runner, id: string, single: boolean, audit?: AuditEntry): Promise<TreeDeletion> {
  return gated(
    db,
    async (tx) => {
      const top = await db.run(sql.lockTreeTop, { id }, tx);
      if (top.length === 0)
        return { members: 0, deleted: 0, inFlight: null, ancestor: null, top: null, hold: null };
      const [row] = await db.run(sql.deleteSubtreeChecked, { id, single }, tx);
      const deleted = Number(row.deleted);
      if (audit && deleted > 0) await recordAudit(db, { ...audit, rows: deleted }, tx);
      return {
        members: Number(row.members),
        deleted: Number(row.deleted),
        inFlight: row.in_flight ?? null,
        ancestor: row.ancestor ?? null,
        top: row.top ?? null,
        hold: row.hold ?? null,
      };
    },
    true,
  );
}

/** Finished jobs that still carry a deletion window, counted up to `cap`. */
export async function countJobsWithWindow(db: Runner, cap: number): Promise<number> {
  const [row] = await db.run(sql.countJobsWithWindow, { cap });
  return Number(row?.n ?? 0);
}

/**
 * One batch of re-freezing a queue's windows (see sql/apply-retention.ts), one
 * transaction; run again when PostgreSQL aborts it to break a deadlock or a serialization
 * conflict with the workers (a batch is all or nothing, and running it again is safe).
 */
export function applyBatch(
  db: Runner,
  queue: string,
  retention: FrozenRetention,
  after: string,
  batchSize: number,
): Promise<{ scanned: number; lastId: string | null; changed: number }> {
  return retryOnConflict(() =>
    db.driver.transaction(async (tx) => {
      const [row] = await db.run(
        apply.applyRetentionJobs(batchSize),
        { queue, retention: JSON.stringify(retention), after },
        tx,
      );
      if (row.ids.length > 0) {
        await db.run(apply.applyRetentionSignals, { ids: row.ids }, tx);
        await db.run(apply.applyRetentionLogs, { ids: row.ids }, tx);
      }
      return { scanned: Number(row.scanned), lastId: row.last_id, changed: Number(row.changed) };
    }),
  );
}

export async function countApply(db: Runner, queue: string, retention: FrozenRetention): Promise<number> {
  const [row] = await db.run(apply.countApplyRetention, { queue, retention: JSON.stringify(retention) });
  return Number(row.n);
}

/** A hold to place: jobs by id and/or a whole queue, with its reason and who placed it. */
export interface HoldRequest {
  ids: string[];
  queue: string | null;
  reason: string;
  by: string;
}

function holdOrRollBack(db: Runner, hold: HoldRequest, audit?: AuditEntry) {
  return db.driver.transaction(async (tx) => {
    await db.run(sql.markHoldsChanged, {}, tx);
    const found = new Set((await db.run(sql.existingJobIds, { ids: hold.ids }, tx)).map((r) => String(r.id)));
    const missing = hold.ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw new MissingJobs(missing);
    const [created] = await db.run(
      sql.insertHold,
      { reason: hold.reason, queue: hold.queue, by: hold.by },
      tx,
    );
    const holdId = String(created.id);
    if (hold.ids.length > 0) await db.run(sql.linkHoldJobs, { hold_id: holdId, ids: hold.ids }, tx);
    const [placed] = await db.run(sql.getHold, { id: holdId }, tx);
    const jobs = Number(placed.jobs);
    if (audit) await recordAudit(db, { ...audit, target: { ...audit.target, holdId }, rows: jobs }, tx);
    return { holdId, jobs };
  });
}

/** Thrown inside placeHold's transaction to roll it back; never leaves this module. */
class MissingJobs extends Error {
  constructor(readonly missing: string[]) {
    super(`no job ${missing[0]}`);
  }
}

function toPause(row: ControlRow | undefined): PauseState {
  return {
    paused: row?.paused === true,
    reason: row?.reason ?? null,
    since: toDate(row?.paused_at),
    pausedBy: row?.paused_by ?? null,
  };
}

function toHold(row: HoldRow): HoldRecord {
  return {
    id: String(row.id),
    reason: row.reason,
    queue: row.queue ?? null,
    jobs: Number(row.jobs),
    createdAt: toDate(row.created_at),
    createdBy: row.created_by ?? null,
  };
}
