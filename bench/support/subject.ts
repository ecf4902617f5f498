/**
 * One job system under test. A subject opens a session on a fresh schema (or queue), and
 * every figure is measured through the same few calls, so each system does the same work.
 */
export interface Subject {
  /** Key used on the command line and in results. */
  readonly key: string;
  /** Name printed in the table. */
  readonly label: string;
  /** The settings used, printed under the table. */
  readonly settings: string;
  /** A session on fresh storage. */
  open(): Promise<Session>;
  /** A session on the storage another process opened (for the two-process drain). */
  attach(descriptor: string): Promise<Session>;
}

/** Called by a worker for each job, with the job's sequence number. */
export type JobHandler = (n: number) => unknown;

export interface Session {
  /** What another process passes to `attach` to work the same jobs. */
  readonly descriptor: string;
  /** Add jobs n = from..from+count-1 in batches of `batch` (one call per batch). */
  bulkAdd(from: number, count: number, batch: number): Promise<void>;
  /** Add one job. */
  addOne(n: number): Promise<void>;
  /** Start one worker at this concurrency; resolves once it is working. */
  startWorker(concurrency: number, handler: JobHandler): Promise<void>;
  stopWorker(): Promise<void>;
  /** Stop everything and drop what `open` created (not for attached sessions). */
  close(): Promise<void>;
}

/** A handler that does nothing (the no-op job). */
export const noop: JobHandler = () => undefined;
