import type { FrozenRetention } from '../model/job.js';
import type { QueueDefaultParams } from './sql/stored-queue.js';

/** One row of an insert batch, already validated and resolved. */
export interface InsertRow {
  queue: string;
  /** The job's data as JSON text (already validated), embedded as it is. */
  dataText: string;
  priority: number;
  /** Absent: the queue's stored option, read by the insert (the queue is not defined in this process). */
  max_attempts?: number;
  run_at?: string;
  delay_seconds?: number;
  expire_in_seconds?: number;
  /** Absent: the queue's stored policy, read by the insert, else `InsertDefaults.retention`. */
  retention?: FrozenRetention;
  unique_key?: string;
  parent_id?: string;
  root_id?: string;
  parent_step?: string;
}

/** What a job gets when neither it, nor its queue as defined here or as stored, sets an option. */
export interface InsertDefaults {
  retention: FrozenRetention;
  maxAttempts: number;
}

/** The parameters the statements read a stored queue's defaults from (sql/stored-queue.ts). */
export function defaultParams(defaults: InsertDefaults): QueueDefaultParams {
  return {
    fallback_retention: JSON.stringify(defaults.retention),
    default_max_attempts: defaults.maxAttempts,
  };
}

/** A single row's retention as a JSON field (null: the queue's stored policy). */
export function retentionField(row: InsertRow): string {
  return `"retention":${row.retention === undefined ? 'null' : JSON.stringify(row.retention)},`;
}

/** The columns of an insert row, as the SQL reads them (data and retention go separately). */
const INSERT_FIELDS = [
  'queue',
  'priority',
  'max_attempts',
  'run_at',
  'delay_seconds',
  'expire_in_seconds',
  'unique_key',
  'parent_id',
  'root_id',
  'parent_step',
] as const;

/**
 * One insert row as JSON text, its data text embedded as it is rather than parsed and
 * serialised again. Written field by field: a bulk add builds a thousand of these per
 * statement, and object rest and spread were most of its cost.
 */
export function insertRowJson(row: InsertRow, extra = ''): string {
  let text = `{${extra}"data":${row.dataText}`;
  for (const field of INSERT_FIELDS) {
    const value = row[field];
    if (value !== undefined) text += `,"${field}":${JSON.stringify(value)}`;
  }
  return `${text}}`;
}
