import { keysOf } from '../model/guards.js';
import type { FrozenRetention } from '../model/job.js';
import { INPUT_FIELDS, type InsertParams, type InsertRow } from './sql/job-columns.js';
import type { UniformInsertParams } from './sql/jobs.js';
import type { QueueDefaultParams } from './sql/stored-queue.js';

export type { InsertRow } from './sql/job-columns.js';

/** What a job gets when neither it, nor its queue as defined here or as stored, sets an option. */
export interface InsertDefaults {
  retention: FrozenRetention;
  maxAttempts: number;
}

const FIELDS = keysOf(INPUT_FIELDS);

/**
 * The parameters of an insert statement (sql/job-columns.ts) for these rows: the rows as one
 * JSON array, each row's data text embedded as it is rather than parsed and serialised again,
 * and the batch's distinct retention windows once each. Written field by field: a bulk add
 * builds a thousand rows per statement, and object rest and spread were most of its cost.
 */
export function insertParams(rows: InsertRow[], defaults: InsertDefaults, channel: string): InsertParams {
  const policies: string[] = [];
  const byText = new Map<string, number>();
  // Rows of one batch usually share one retention object: serialise each object once.
  const byObject = new Map<object, number>();
  const policyOf = (retention: FrozenRetention | undefined) => {
    if (retention === undefined) return null;
    let policy = byObject.get(retention);
    if (policy !== undefined) return policy;
    const text = JSON.stringify(retention);
    policy = byText.get(text);
    if (policy === undefined) {
      policy = policies.length;
      policies.push(text);
      byText.set(text, policy);
    }
    byObject.set(retention, policy);
    return policy;
  };
  const input = new Array<string>(rows.length);
  for (let idx = 0; idx < rows.length; idx++) {
    const row = rows[idx];
    let text = `{"idx":${idx},"policy":${policyOf(row.retention)},"data":${row.dataText}`;
    for (const field of FIELDS) {
      const value = row[field];
      if (value !== undefined) text += `,"${field}":${JSON.stringify(value)}`;
    }
    input[idx] = `${text}}`;
  }
  return {
    jobs: `[${input.join(',')}]`,
    policies: `[${policies.join(',')}]`,
    channel,
    ...queueDefaultParams(defaults),
  };
}

/** What every insert statement reads where neither the job nor its stored queue sets an option. */
function queueDefaultParams(defaults: InsertDefaults): QueueDefaultParams {
  return {
    fallback_retention: JSON.stringify(defaults.retention),
    default_max_attempts: defaults.maxAttempts,
  };
}

/** The fields a row of a uniform batch shares with the others (the rest must be absent). */
const SHARED: ReadonlySet<(typeof FIELDS)[number]> = new Set([
  'queue',
  'priority',
  'max_attempts',
  'trace',
  'version',
] as const);
/** The fields of INPUT_FIELDS a row of a uniform batch leaves out. */
const UNSHARED = FIELDS.filter((field) => !SHARED.has(field));

/**
 * The parameters of insertUniformJobs when the rows differ in their data alone (see there),
 * else null: the general statement writes them. Retention counts as shared when every row
 * holds the same frozen object or none, as a batch resolved against one queue does.
 */
export function uniformInsertParams(
  rows: InsertRow[],
  defaults: InsertDefaults,
  channel: string,
): UniformInsertParams | null {
  const first = rows[0];
  if (first === undefined) return null;
  const data = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (
      row.queue !== first.queue ||
      row.priority !== first.priority ||
      row.max_attempts !== first.max_attempts ||
      row.retention !== first.retention ||
      row.trace !== first.trace ||
      row.version !== first.version
    ) {
      return null;
    }
    for (const field of UNSHARED) if (row[field] !== undefined) return null;
    data[i] = row.dataText;
  }
  return {
    queue: first.queue,
    priority: first.priority,
    max_attempts: first.max_attempts ?? null,
    retention: first.retention === undefined ? null : JSON.stringify(first.retention),
    trace: first.trace === undefined ? null : JSON.stringify(first.trace),
    version: first.version ?? null,
    data: `[${data.join(',')}]`,
    channel,
    ...queueDefaultParams(defaults),
  };
}
