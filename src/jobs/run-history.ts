import type { EngineCore } from '../engine-core.js';
import type { AttemptRecord, HistoryEvent, RunHistory } from '../model/history.js';
import type { Job } from '../model/job.js';
import { type RunRecord, toDate } from '../storage/storage.js';

/** The attempt log keeps this many entries (log_attempt, migration 0001). */
const ATTEMPT_LOG_MAX = 26;

/** The job's run history: its attempts from the attempt log and its row, and its runs' events. */
export async function loadRunHistory(core: EngineCore, job: Job): Promise<RunHistory> {
  return runHistoryOf(job, await core.storage.reads.runRecordOf(job.id));
}

/** The history from what is stored: pure, so the dashboard and the API tell the same story. */
export function runHistoryOf(job: Job, record: RunRecord): RunHistory {
  const stored = record.events.filter((e) => e.kind !== 'dropped');
  const droppedRow = record.events.find((e) => e.kind === 'dropped');
  const events: HistoryEvent[] = stored.map((e) => ({
    seq: e.seq,
    attempt: e.attempt,
    kind: e.kind,
    at: e.at,
    endedAt: e.ended_at,
    worker: e.worker,
    detail: e.detail ?? {},
  }));
  const attempts = attemptsOf(job, record, events);
  const firstLogged = record.attemptLog[0]?.attempt ?? 1;
  const lostAttempts = record.attemptLog.length >= ATTEMPT_LOG_MAX - 1 ? Math.max(0, firstLogged - 1) : 0;
  return { attempts, events, dropped: Number(droppedRow?.detail?.count ?? 0) + lostAttempts };
}

function attemptsOf(job: Job, record: RunRecord, events: HistoryEvent[]): AttemptRecord[] {
  // A workflow's attempt began with its first run: later runs (resumes) overwrite the row's start.
  const firstRun = new Map<number, Date>();
  for (const e of events) if (e.kind === 'run' && !firstRun.has(e.attempt)) firstRun.set(e.attempt, e.at);
  const began = (attempt: number, fallback: Date | null) => firstRun.get(attempt) ?? fallback;
  const attempts: AttemptRecord[] = record.attemptLog.map((entry) => ({
    attempt: entry.attempt,
    startedAt: began(entry.attempt, toDate(entry.startedAt)),
    endedAt: toDate(entry.endedAt),
    worker: entry.worker ?? null,
    outcome: loggedOutcome(entry.name),
    error: entry.name === 'RetryAfter' ? null : { name: entry.name, message: entry.message },
  }));
  const last = attempts.at(-1);
  const current = currentAttempt(job, record, began);
  if (current === null) return attempts;
  // A failed job's last attempt is in the log already: give it the row's end, not twice.
  if (last && last.attempt === current.attempt && last.outcome === 'failed') {
    if (job.status === 'failed') last.endedAt = job.finishedAt ?? last.endedAt;
    return attempts;
  }
  attempts.push(current);
  return attempts;
}

/** The attempt the row holds: running, parked, or the one the job finished with. */
function currentAttempt(
  job: Job,
  record: RunRecord,
  began: (attempt: number, fallback: Date | null) => Date | null,
): AttemptRecord | null {
  if (job.attempts === 0 || job.startedAt === null) return null;
  const outcome = CURRENT_OUTCOME[job.status];
  if (outcome === undefined) return null;
  const running = job.status === 'active';
  return {
    attempt: job.attempts,
    startedAt: began(job.attempts, job.startedAt),
    endedAt: running || job.status === 'waiting' ? null : job.finishedAt,
    worker: running ? job.lockedBy : record.lastWorker,
    outcome,
    error:
      job.status === 'failed' && job.error
        ? { name: job.error.name ?? null, message: job.error.message ?? null }
        : null,
  };
}

/** The outcome of the attempt a job's status says it is in, or ended with; none for `pending` and `retry`. */
const CURRENT_OUTCOME: Partial<Record<Job['status'], string>> = {
  active: 'running',
  waiting: 'waiting',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
};

function loggedOutcome(name: string | null): string {
  if (name === 'RetryAfter') return 'deferred';
  if (name === 'StalledJobError') return 'stalled';
  if (name === 'NonDeterminismError') return 'paused';
  return 'failed';
}
