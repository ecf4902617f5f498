import { isFinished } from '../job-status.js';
import type { CheckpointRow, ChildOutcome, JobLineage, SignalRow } from '../model/workflow.js';
import type { Queryable } from './driver/driver.js';
import { type InsertDefaults, type InsertRow, insertParams } from './insert-rows.js';
import { toCheckpoint, toSignal } from './rows.js';
import type { Runner } from './runner.js';
import * as fork from './sql/fork.js';
import * as wf from './sql/workflow.js';

export type { CheckpointRow, ChildOutcome, SignalRow } from '../model/workflow.js';

/** Why `tm.signal` refused a delivery. */
export type SignalRefusal =
  | 'job-not-found'
  | 'job-finished'
  | 'unknown-signal'
  | 'mailbox-full'
  | 'wait-completed';

/* Workflow state: checkpoints, signals, children. Same statements on both drivers. */

export async function listCheckpoints(db: Runner, jobId: string, on?: Queryable): Promise<CheckpointRow[]> {
  const rows = await db.run(wf.listCheckpoints, { id: jobId }, on);
  return rows.map(toCheckpoint);
}

/** False when the attempt no longer owns the job. */
export async function saveCheckpoint(
  db: Runner,
  jobId: string,
  token: string,
  name: string,
  kind: string,
  outputText: string,
  seq: number | null = null,
): Promise<boolean> {
  const rows = await db.run(wf.saveCheckpoint, { id: jobId, token, name, kind, output: outputText, seq });
  return rows.length > 0;
}

/** The wait's stored result when enough signals were consumed now, else null. */
export async function consumeSignals(
  db: Runner,
  jobId: string,
  token: string,
  names: string[],
  count: number,
  waitKey: string,
): Promise<{ signals: { name: string; payload: unknown }[] } | null> {
  const [row] = await db.run(wf.consumeSignals, { id: jobId, token, names, count, wait_key: waitKey });
  return row?.output ?? null;
}

/** The child's id; null when the parent is no longer owned. */
export async function insertChild(
  db: Runner,
  row: InsertRow,
  token: string,
  defaults: InsertDefaults,
): Promise<string | null> {
  const inserted = await db.run(wf.insertChild, { ...insertParams([row], defaults, db.channel), token });
  return inserted[0] ? String(inserted[0].id) : null;
}

/** The child a workflow step created, with its outcome; null when there is none yet. */
export async function findChild(db: Runner, parentId: string, step: string): Promise<ChildOutcome | null> {
  const [row] = await db.run(wf.findChild, { parent_id: parentId, parent_step: step });
  return row ? { ...row, id: String(row.id) } : null;
}

/**
 * Store a signal for a job, or say why not; nothing is written on refusal. Runs under the
 * job's row lock, so concurrent deliveries cannot both take the last mailbox slot.
 * The mailbox of a name holds its declared size; while the job is parked in a wait, that
 * wait's own count (1 across the names of `waitForAny`) bounds the names it waits for.
 */
export async function deliverSignal(
  db: Runner,
  jobId: string,
  name: string,
  payloadText: string,
  on?: Queryable,
): Promise<{ delivered: true } | { delivered: false; reason: SignalRefusal }> {
  // Inside a caller's transaction the checks and the one write run in it: the job stays locked
  // until it ends, and the wake-up (a NOTIFY) is sent only if it commits.
  const deliver = async (tx: Queryable) => {
    const [job] = await db.run(wf.lockJobForSignal, { id: jobId }, tx);
    if (!job) return { delivered: false, reason: 'job-not-found' as const };
    if (isFinished(job.status)) {
      return { delivered: false, reason: 'job-finished' as const };
    }
    const size = job.signals?.[name];
    if (typeof size !== 'number') return { delivered: false, reason: 'unknown-signal' as const };
    const parked = job.status === 'waiting' || (job.status === 'paused' && job.paused_from === 'waiting');
    const named = job.wait?.names;
    const waitNames: string[] = Array.isArray(named) ? named : [];
    const waitingNow = parked && waitNames.includes(name);
    const [state] = await db.run(
      wf.countPendingSignals,
      { id: jobId, name, wait_names: waitingNow ? waitNames : [] },
      tx,
    );
    if (state.wait_done && !waitingNow) return { delivered: false, reason: 'wait-completed' as const };
    if (Number(state.pending) >= size) return { delivered: false, reason: 'mailbox-full' as const };
    const waitCount = job.wait?.count;
    if (waitingNow && typeof waitCount === 'number' && Number(state.pending_for_wait) >= waitCount) {
      return { delivered: false, reason: 'mailbox-full' as const };
    }
    await db.run(wf.insertSignal, { id: jobId, name, payload: payloadText, channel: db.channel }, tx);
    return { delivered: true as const };
  };
  return on === undefined ? db.driver.transaction(deliver) : deliver(on);
}

export async function listSignals(db: Runner, jobId: string, on?: Queryable): Promise<SignalRow[]> {
  const rows = await db.run(wf.listSignals, { id: jobId }, on);
  return rows.map(toSignal);
}

/** Copy the named checkpoints of one job to another (a fork), inside `on`; the names copied. */
export async function copyCheckpoints(
  db: Runner,
  fromId: string,
  toId: string,
  names: string[],
  on?: Queryable,
): Promise<string[]> {
  const rows = await db.run(fork.copyCheckpoints, { from_id: fromId, to_id: toId, names }, on);
  return rows.map((row) => row.name);
}

/** The job a job was forked from, and the forks made of it (the first 100, oldest first). */
export async function jobLineage(db: Runner, jobId: string): Promise<JobLineage> {
  const [row] = await db.run(fork.jobLineage, { id: jobId });
  return { forkedFrom: row?.forked_from ?? null, forks: row?.forks ?? [] };
}
