import type { EngineCore } from '../engine-core.js';
import { toDate, type WorkflowViewRow } from '../storage/storage.js';

/**
 * What a parked workflow waits for, read from the wait the runtime recorded when it parked
 * the job and the checkpoint that wait keeps (see src/workflow/workflow-context.ts).
 */
export type WorkflowWait =
  /** `ctx.sleep(name, seconds)`: wakes at `until`. */
  | { kind: 'sleep'; name: string; until: Date | null }
  /**
   * `waitForSignal`, `waitForAny` (several names, one needed) or `waitForSignals` (one name,
   * `needed` of them). `received` counts the awaited signals stored and not yet consumed.
   */
  | { kind: 'signal'; names: string[]; needed: number; received: number; timeoutAt: Date | null }
  /** `ctx.runChild`: the child's queue and status are null when the child no longer exists. */
  | { kind: 'child'; id: string; queue: string | null; status: string | null }
  /** `ctx.waitForToken`: the token's name and id, and when it expires (the wait times out). */
  | { kind: 'token'; name: string; tokenId: string; expiresAt: Date | null }
  /** Added with `dependsOn`: waits for those jobs to finish (`getJobDetail(id).dependencies`). */
  | { kind: 'dependencies' }
  /** Parked, but the wait was not recorded in a form this version knows. */
  | { kind: 'unknown' };

/** The workflow side of one job: its wait (when parked) and the signals its queue takes. */
export interface WorkflowView {
  /** Null unless the job is parked in a wait (`waiting`, or paused while waiting). */
  wait: WorkflowWait | null;
  /** Parked and paused: the wait resumes when the job is resumed. */
  pausedWhileWaiting: boolean;
  /** Signal names the job's queue declares, with their mailbox sizes. */
  declaredSignals: Record<string, number>;
}

/** Null when the job does not exist. */
export async function loadWorkflowView(core: EngineCore, id: string): Promise<WorkflowView | null> {
  const row = await core.storage.reads.workflowWaitOf(id);
  return row ? toWorkflowView(row) : null;
}

/** The view of one row: pure, so every shape of recorded wait is easy to check. */
export function toWorkflowView(row: WorkflowViewRow): WorkflowView {
  const pausedWhileWaiting = row.status === 'paused' && row.paused_from === 'waiting';
  const parked = row.status === 'waiting' || pausedWhileWaiting;
  return {
    wait: parked ? describeWait(row) : null,
    pausedWhileWaiting,
    declaredSignals: declared(row.declared_signals),
  };
}

function describeWait(row: WorkflowViewRow): WorkflowWait {
  const wait = row.wait ?? {};
  const saved = row.wait_checkpoint ?? {};
  // The job's timer is the same instant, except after a wake-up made it due at once.
  const timer = finiteTime(toDate(row.run_at));
  switch (wait.kind) {
    case 'sleep':
      return {
        kind: 'sleep',
        name: String(wait.name ?? ''),
        until: savedTime(saved.wakeAt) ?? timer,
      };
    case 'signal': {
      const names = Array.isArray(wait.names) ? wait.names.map(String) : [];
      const deadline = 'deadline' in saved ? savedTime(saved.deadline) : timer;
      return {
        kind: 'signal',
        names,
        needed: Number(wait.count ?? 1),
        received: Number(row.received),
        timeoutAt: deadline,
      };
    }
    case 'child':
      return {
        kind: 'child',
        id: String(wait.childId ?? row.child_id ?? ''),
        queue: row.child_queue,
        status: row.child_status,
      };
    case 'token':
      return {
        kind: 'token',
        name: String(wait.name ?? ''),
        tokenId: String(wait.tokenId ?? ''),
        expiresAt: savedTime(saved.deadline) ?? timer,
      };
    case 'dependencies':
      return { kind: 'dependencies' };
    default:
      return { kind: 'unknown' };
  }
}

/**
 * A time worth showing: null for none, an invalid one, or the far-future sentinel that stands
 * for "no timer" (`infinity` in the database).
 */
/** A time a checkpoint saved as JSON (an ISO string); anything else is no time. */
function savedTime(value: unknown): Date | null {
  return typeof value === 'string' ? finiteTime(toDate(value)) : null;
}

export function finiteTime(date: Date | null): Date | null {
  if (!date) return null;
  const ms = date.getTime();
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? date : null;
}

function declared(value: Record<string, number> | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (!value || typeof value !== 'object') return out;
  for (const [name, size] of Object.entries(value)) if (typeof size === 'number') out[name] = size;
  return out;
}
