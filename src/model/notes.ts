/**
 * What a handler says of its job while it runs: progress, metadata and log lines (`ctx.progress`,
 * `ctx.metadata`, `ctx.log`). Written to the job, at most once a second and always before the
 * attempt's outcome; read back with `tm.getJob` (progress, metadata) and `tm.getJobLogs`.
 */

/** A log line's level. */
export type JobLogLevel = 'info' | 'warn' | 'error';

/** What `ctx.progress` takes: a number from 0 to 100, or a JSON object (say `{ done, total }`). */
export type Progress = number | Record<string, unknown>;

/** `ctx.metadata`: JSON values by key, kept on the job across attempts. */
export interface JobMetadata {
  /**
   * Store `value` (JSON data) under `key`; `undefined` removes the key. Throws
   * InvalidOptionError, and changes nothing, for a key that is not a string of 1 to 200
   * characters, a value that is not JSON data, or metadata that would exceed 64 KiB of JSON.
   */
  set(key: string, value: unknown): void;
  /** The value under `key` (as stored, or as set in this attempt), or undefined. */
  get(key: string): unknown;
  /** Every key and value, as a copy. */
  all(): Record<string, unknown>;
}

/**
 * `ctx.log`: lines kept with the job, each with the attempt that wrote it. A job keeps at most
 * 1,000 lines and 256 KiB across its attempts; lines beyond the caps are dropped and counted
 * (`JobLogs.dropped`). Never throws for the caps; throws InvalidOptionError for a message that
 * is not a string or attributes that are not a JSON object.
 */
export interface JobLog {
  info(message: string, attrs?: Record<string, unknown>): void;
  warn(message: string, attrs?: Record<string, unknown>): void;
  error(message: string, attrs?: Record<string, unknown>): void;
}

/** One log line of a job, as `tm.getJobLogs` returns it. */
export interface JobLogLine {
  /** Ascending in the order written; pass the last one as `after` for the next page. */
  id: string;
  /** The attempt that wrote it. */
  attempt: number;
  level: JobLogLevel;
  message: string;
  attrs: Record<string, unknown> | null;
  at: Date;
}

/** A page of a job's log. */
export interface JobLogs {
  lines: JobLogLine[];
  /** Lines the caps refused, over all attempts. */
  dropped: number;
  /** The `after` of the next page, or null when this page reaches the end. */
  next: string | null;
}

/** The caps of what a job can say of itself. */
export const NOTE_LIMITS = {
  /** JSON bytes of a progress object. */
  progressBytes: 4 * 1024,
  /** JSON bytes of all of a job's metadata. */
  metadataBytes: 64 * 1024,
  /** Characters of a metadata key. */
  metadataKeyLength: 200,
  /** Log lines a job keeps, over all its attempts. */
  logLines: 1000,
  /** Bytes of log a job keeps (messages and attributes as JSON), over all its attempts. */
  logBytes: 256 * 1024,
  /** Bytes of one line's attributes as JSON. */
  logAttrsBytes: 8 * 1024,
} as const;

/** Notes are written at most this often per job (and always before the attempt's outcome). */
export const NOTES_FLUSH_SECONDS = 1;
