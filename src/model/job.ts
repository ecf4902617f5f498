import { FINISHED_STATUSES, type FinishedStatus, type JobStatus } from '../job-status.js';
import type { JobTrace } from './tracing.js';

/** Retention windows frozen onto a job when it was added (seconds; absent = kept forever). */
export type FrozenRetention = { [status in FinishedStatus]?: number } & {
  consumedSignals?: number;
  logsAfterSeconds?: number;
};

/** The windows a frozen policy can hold: one per finished status, consumed signals' and log lines'. */
export const WINDOW_KEYS: readonly (keyof FrozenRetention)[] = [
  ...FINISHED_STATUSES,
  'consumedSignals',
  'logsAfterSeconds',
];

/** A job as Tidemark returns it. Ids are strings; times are `Date`s, on both drivers. */
export interface Job<Data = unknown, Output = unknown> {
  id: string;
  queue: string;
  status: JobStatus;
  data: Data;
  output: Output | null;
  /** The last attempt's error: `{ name, message, stack? }`, or null. */
  error: JobError | null;
  /** Attempts started so far (a workflow resumed from `waiting` continues its attempt). */
  attempts: number;
  maxAttempts: number;
  /** Higher runs first. */
  priority: number;
  runAt: Date;
  expireAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  parentId: string | null;
  /** The top of this job's tree (null for a job that is itself a top). */
  rootId: string | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  retention: FrozenRetention;
  /** The concurrency key the job was added with (flow control), or null. */
  key: string | null;
  /** The key's tier the job was added with, or null. */
  tier: string | null;
  /** The tags the job was added with (`addJob({ tags })`); empty when none. */
  tags: readonly string[];
  /** What the handler last reported with `ctx.progress`: a number from 0 to 100, a JSON object, or null. */
  progress: number | Record<string, unknown> | null;
  /** What the handler stored with `ctx.metadata.set`, by key; empty when nothing. */
  metadata: Readonly<Record<string, unknown>>;
  /** The trace context the job was added in (tracing on, inside a span), or null. */
  trace: JobTrace | null;
  /** When retention may delete this job (null: in flight, or kept forever). */
  purgeAfter: Date | null;
  /**
   * Its queue's `version` where the job was added, or null. Read by `getJob` and `listJobs`; a
   * claim does not read it, so it is null on the job a handler receives (the handler knows its
   * own version).
   */
  version: string | null;
}

export interface JobError {
  name?: string;
  message: string;
  stack?: string;
  [key: string]: unknown;
}
