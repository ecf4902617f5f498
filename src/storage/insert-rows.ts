import { keysOf } from '../model/guards.js';
import type { FrozenRetention } from '../model/job.js';
import { INPUT_FIELDS, type InsertParams, type InsertRow } from './sql/job-columns.js';

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
    fallback_retention: JSON.stringify(defaults.retention),
    default_max_attempts: defaults.maxAttempts,
  };
}
