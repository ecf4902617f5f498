import type { Runner } from '../runner.js';
import { type AttemptEntry, jobAttemptLog, jobTree, type TreeNode } from '../sql/admin.js';
import { jobRunRecord, listHistory, type StoredHistoryEvent } from '../sql/history.js';
import { type WorkflowViewRow, workflowView } from '../sql/workflow-view.js';

export type { AttemptEntry, TreeNode } from '../sql/admin.js';
export type { WorkflowViewRow } from '../sql/workflow-view.js';

/** The failed attempts recorded on a job, oldest first (empty when none, or no such job). */
export async function attemptLog(db: Runner, id: string): Promise<AttemptEntry[]> {
  const [row] = await db.run(jobAttemptLog, { id });
  return Array.isArray(row?.attempt_log) ? row.attempt_log : [];
}

/** A job and its descendants, depth-first, at most `maxRows` of them. */
export async function jobTreeOf(db: Runner, id: string, maxRows: number): Promise<TreeNode[]> {
  const rows = await db.run(jobTree, { id, max_rows: maxRows });
  return rows.map((node) => ({ ...node, depth: Number(node.depth) }));
}

/** A job's recorded wait with what it points at; null when there is no such job. */
export async function workflowWaitOf(db: Runner, id: string): Promise<WorkflowViewRow | null> {
  const [row] = await db.run(workflowView, { id });
  return row ?? null;
}

/** The stored parts of a job's run history: its events, attempt log and last worker. */
export async function runRecordOf(db: Runner, id: string): Promise<RunRecord> {
  const [events, [row]] = await Promise.all([db.run(listHistory, { id }), db.run(jobRunRecord, { id })]);
  return {
    events,
    attemptLog: Array.isArray(row?.attempt_log) ? row.attempt_log : [],
    lastWorker: row?.ran_by ?? null,
  };
}

/** A job's run history as stored (see runRecordOf). */
export interface RunRecord {
  events: StoredHistoryEvent[];
  attemptLog: AttemptEntry[];
  lastWorker: string | null;
}
