import { EventEmitter } from 'node:events';
import type { NonDeterminismError } from './errors.js';
import type { SweepBreakdown } from './retention/sweep-types.js';

/** Counts of rows one retention pass deleted (or would delete, for a dry run). */
export interface SweepCounts {
  jobs: number;
  signals: number;
  /** Log lines deleted on their own window (`logsAfterSeconds`); present only when there were some. */
  logLines?: number;
  uniqueLocks: number;
}

/** The typed events a Tidemark instance emits. Logs, metrics and tests all read these. */
export interface TidemarkEvents {
  /** Jobs added to one queue by one call (deduplicated adds are not counted), with their ids in add order. */
  'job:added': { queue: string; count: number; ids: string[] };
  'job:started': { id: string; queue: string; attempt: number; pickupLatencyMs: number };
  'job:completed': { id: string; queue: string; durationMs: number };
  /** A failed attempt; `willRetry` says whether the job goes to `retry`. */
  'job:failed': {
    id: string;
    queue: string;
    /** What the handler threw; a value that is not an Error arrives wrapped in one (as its `cause`). */
    error: Error;
    willRetry: boolean;
    durationMs: number;
  };
  'job:suspended': { id: string; queue: string; reason: 'sleep' | 'signal' | 'child' | 'token' };
  /** A handler threw `ctx.retryAfter(seconds)`: the job is pending again, due in `seconds`. */
  'job:deferred': { id: string; queue: string; seconds: number; reason: string | null };
  /**
   * A workflow's code no longer matches its record (the determinism guard): the job is
   * `paused`, `error` says what the record expected and what the code did; `resumeJob` after a
   * fixed deploy continues it.
   */
  'job:paused': { id: string; queue: string; error: NonDeterminismError };
  /** A worker's finishing write changed nothing: the job was cancelled or reclaimed meanwhile. */
  'job:lost': { id: string; queue: string };
  'maintenance:tick': { stalled: number; expired: number; promoted: number; scheduled: number };
  /** One retention pass ended: rows deleted (jobs per queue and status), batches, duration; `error` if it stopped early. */
  'sweep:finished': SweepCounts & {
    byQueue: SweepBreakdown[];
    durationMs: number;
    batches: number;
    error?: string;
    /** Retention was paused cluster-wide: nothing (more) was deleted. */
    paused?: boolean;
  };
  'unique-lock-sweep:finished': {
    uniqueLocks: number;
    /** Full limiter buckets deleted with them. */
    limiterBuckets: number;
    durationMs: number;
    error?: string;
    paused?: boolean;
  };
  /** A background loop failed; it goes on at its next interval. */
  error: { scope: string; error: unknown };
}

export type TidemarkEventName = keyof TidemarkEvents;

/** A small typed wrapper over Node's EventEmitter. */
export class TypedEmitter {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(100);
  }

  on<E extends TidemarkEventName>(event: E, listener: (payload: TidemarkEvents[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  once<E extends TidemarkEventName>(event: E, listener: (payload: TidemarkEvents[E]) => void): () => void {
    this.emitter.once(event, listener);
    return () => this.emitter.off(event, listener);
  }

  off<E extends TidemarkEventName>(event: E, listener: (payload: TidemarkEvents[E]) => void): void {
    this.emitter.off(event, listener);
  }

  emit<E extends TidemarkEventName>(event: E, payload: TidemarkEvents[E]): void {
    // `error` with no listener would throw in EventEmitter; ours is informational only.
    if (event === 'error' && this.emitter.listenerCount('error') === 0) return;
    this.emitter.emit(event, payload);
  }

  listenerCount(event: TidemarkEventName): number {
    return this.emitter.listenerCount(event);
  }
}
