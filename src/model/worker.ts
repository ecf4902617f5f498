/** A periodic sweep as a worker runs it. */
export interface WorkerSweepSetting {
  intervalSeconds: number;
  batchSize: number;
}

/** What a worker runs beside its claim loop, as it registered it. */
export interface WorkerSettings {
  /** Its retention sweep; false when turned off on it, or when its storage deletes nothing. */
  sweep: WorkerSweepSetting | false;
  /** Its expired unique-lock sweep, or false. */
  uniqueLockSweep: WorkerSweepSetting | false;
  /** Seconds between its maintenance ticks. */
  tickIntervalSeconds: number;
}

/** A worker as it registered itself in the database: what `tm.listWorkers()` returns. */
export interface WorkerRecord {
  /** The worker's id, also the `lockedBy` of the jobs it runs. */
  id: string;
  host: string;
  pid: number;
  /** The queues it works; null: every queue with a handler in its process. */
  queues: string[] | null;
  concurrency: number;
  settings: WorkerSettings;
  /** Seconds between its beats (a third of its `lockSeconds`). */
  heartbeatSeconds: number;
  startedAt: Date;
  /** Its last beat, by the database's clock. */
  heartbeatAt: Date;
  /** Attempts it was running at its last beat. */
  running: number;
  /**
   * No beat for three beat intervals: killed, hung or cut off from the database. A stopped
   * worker removes its row; a gone one is deleted by the maintenance tick an hour later.
   */
  gone: boolean;
}

/** Workers counted over every row, not cut off by a listing's cap, and the sweeps the live ones run. */
export interface WorkerSummary {
  live: number;
  gone: number;
  /** Live workers that run the retention sweep. */
  sweepers: number;
  /** Distinct sweep intervals (seconds) and batch sizes among the sweepers, smallest first. */
  intervals: number[];
  batchSizes: number[];
}
