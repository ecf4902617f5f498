import type { Job } from '../model/job.js';
import type { Wait } from './suspend.js';

/** Most events one run keeps in memory; the job's history keeps at most as many in all. */
const RUN_EVENTS_MAX = 1000;
/** Most replayed step names one run lists (the count is kept whole). */
const REPLAYED_NAMES_MAX = 100;

/** One event of a run as written to the run history (sql/history.ts). */
interface HistoryEntry {
  kind: string;
  at: string;
  endedAt?: string;
  worker?: string;
  detail?: Record<string, unknown>;
}

/**
 * What one run of a workflow did, kept in memory and written in the statement that records
 * the run's outcome (its completion, failure, suspension or deferral), never on its own:
 * the run itself (start, worker; the database adds its end and outcome), the wait it woke
 * from, each step run (start, end, error) and the steps replayed, each sleep and wait it
 * parked on, each child started or found finished, each signal consumed and each timeout.
 * A run that dies before its outcome is written loses these events; its steps' checkpoints
 * are kept as always.
 */
export class HistoryBook {
  private readonly events: HistoryEntry[];
  private readonly replayed: string[] = [];
  private replayCount = 0;
  private replayAt: string | null = null;
  private overflow = 0;

  constructor(
    job: Job,
    woken: Wait | null,
    private readonly now: () => number,
  ) {
    const at = (job.startedAt ?? new Date(now())).toISOString();
    this.events = [{ kind: 'run', at, worker: job.lockedBy ?? undefined, detail: {} }];
    if (woken !== null) this.events.push({ kind: 'woke', at, detail: waitDetail(woken) });
  }

  /** A step ran from `startedAt` to now; `error` when it threw. */
  step(name: string, startedAt: number, error?: unknown): void {
    const detail: Record<string, unknown> = { name };
    if (error !== undefined) detail.error = errorDetail(error);
    this.push({ kind: 'step', at: iso(startedAt), endedAt: iso(this.now()), detail });
  }

  /** A step's checkpoint answered for it: counted, and named up to a bound. */
  replay(name: string): void {
    this.replayAt ??= iso(this.now());
    this.replayCount++;
    if (this.replayed.length < REPLAYED_NAMES_MAX) this.replayed.push(name);
  }

  /** The run parks on `wait` (until `until`, when it has a timer). */
  parked(wait: Wait, until: Date | null): void {
    this.add('parked', { ...waitDetail(wait), until: until?.toISOString() ?? null });
  }

  /** Anything else the run did: a child started or finished, signals consumed, a wait timed out. */
  add(kind: string, detail: Record<string, unknown>): void {
    this.push({ kind, at: iso(this.now()), detail });
  }

  /** The events as the JSON array the outcome's statement takes. */
  text(): string {
    const events = [...this.events];
    if (this.replayCount > 0 && this.replayAt !== null) {
      // Replays come first in a run, after the wake that started it.
      events.splice(events[1]?.kind === 'woke' ? 2 : 1, 0, {
        kind: 'replay',
        at: this.replayAt,
        detail: { count: this.replayCount, steps: this.replayed },
      });
    }
    if (this.overflow > 0) {
      events.push({ kind: 'dropped', at: iso(this.now()), detail: { count: this.overflow } });
    }
    return JSON.stringify(events);
  }

  private push(entry: HistoryEntry): void {
    if (this.events.length < RUN_EVENTS_MAX) this.events.push(entry);
    else this.overflow++;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** What a wait was for, as the history shows it. */
function waitDetail(wait: Wait): Record<string, unknown> {
  switch (wait.kind) {
    case 'sleep':
      return { wait: 'sleep', name: wait.name };
    case 'signal':
      return { wait: 'signal', key: wait.key, signals: wait.names, count: wait.count };
    case 'child':
      return { wait: 'child', key: wait.key, childId: wait.childId };
    case 'token':
      return { wait: 'token', key: wait.key, name: wait.name, tokenId: wait.tokenId };
  }
}

function errorDetail(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message.slice(0, 500) };
  return { name: 'Error', message: String(error).slice(0, 500) };
}
