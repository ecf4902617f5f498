/** The error an attempt ended with, as the run history keeps it. */
export interface HistoryError {
  name: string | null;
  message: string | null;
}

/**
 * One attempt of a job: when it started (its first run, for a workflow that parked and
 * resumed), when it ended, the worker that ran it last, and how it ended.
 */
export interface AttemptRecord {
  attempt: number;
  startedAt: Date | null;
  endedAt: Date | null;
  worker: string | null;
  /**
   * How it ended: `completed`, `failed` (and retried, when a later attempt follows), `deferred`
   * (`ctx.retryAfter`: the attempt is counted again), `paused` (the determinism guard parked it:
   * counted again too), `stalled` (its lock lapsed), `cancelled`,
   * `expired`; or, for the job's current attempt, `running` or `waiting`.
   */
  outcome: string;
  error: HistoryError | null;
}

/**
 * One event of a job's runs, oldest first, never overwritten. Kinds:
 * - `run`: one run of a workflow, from its claim (`at`) to its outcome (`endedAt`); `detail`
 *   has `outcome` (the job's status after it: `completed`, `retry`, `failed`, `waiting`,
 *   `deferred`, `paused`), `error`, and `wait` for a run that parked.
 * - `woke`: the run resumed a parked workflow; `detail.wait` says what it waited for.
 * - `replay`: steps answered from their checkpoints (`detail.count`, `detail.steps`).
 * - `step`: a step run, `at` to `endedAt`, with `detail.error` when it threw.
 * - `parked`: the run parked on a sleep, a signal wait or a child (`detail.wait`, `until`).
 * - `child`: a child job started (`detail.childId`); `child-done`: the child it waited for finished.
 * - `signal`: signals consumed by a wait (`detail.signals`); `timeout`: a wait's deadline passed.
 */
export interface HistoryEvent {
  seq: number;
  attempt: number;
  kind: string;
  at: Date;
  endedAt: Date | null;
  worker: string | null;
  detail: Record<string, unknown>;
}

/**
 * A job's run history (`getJobDetail(id).history`): every attempt, and for a workflow every
 * event of its runs. A job keeps at most 1,000 events; `dropped` counts those past the cap,
 * and the attempts that fell out of the attempt log (it keeps the last 25).
 */
export interface RunHistory {
  attempts: AttemptRecord[];
  events: HistoryEvent[];
  dropped: number;
}
