import { InvalidRetentionPolicyError } from '../errors.js';
import { FINISHED_STATUSES, type FinishedStatus, type JobStatus } from '../job-status.js';
import { isOneOf, isRecord, keysOf } from './guards.js';
import { type FrozenRetention, WINDOW_KEYS } from './job.js';

/**
 * How long finished rows are kept, in seconds. Two shapes:
 * - `{ ttlSeconds, statuses? }`: one window for the listed finished statuses (all four when omitted);
 * - per-status windows `{ completed?, failed?, cancelled?, expired?, consumedSignals?, logsAfterSeconds? }`.
 * A status left out, or a window of 0, is kept forever. A policy replaces the one below it; it never merges.
 */
export type RetentionPolicy = TtlRetentionPolicy | WindowRetentionPolicy;

export interface TtlRetentionPolicy {
  ttlSeconds: number;
  statuses?: JobStatus[];
}

export interface WindowRetentionPolicy {
  completed?: number;
  failed?: number;
  cancelled?: number;
  expired?: number;
  /** Seconds after `consumed_at` that a consumed signal is deleted; absent: it lives as long as its job. */
  consumedSignals?: number;
  /**
   * Seconds after it was written that a job's log line is deleted, before its job when the
   * job's own window is longer; absent: a line lives as long as its job.
   */
  logsAfterSeconds?: number;
}

const DAY = 86_400;

function frozen(policy: WindowRetentionPolicy): Readonly<WindowRetentionPolicy> {
  return Object.freeze(policy);
}

/** Ready-made policies. */
export const Retention = Object.freeze({
  /** Keep every finished job forever, on purpose (the same as `retention: false`). */
  KEEP: frozen({}),
  /** The default: completed 30 days, failed/cancelled/expired 90 days, consumed signals 7 days. */
  STOCK: frozen({
    completed: 30 * DAY,
    failed: 90 * DAY,
    cancelled: 90 * DAY,
    expired: 90 * DAY,
    consumedSignals: 7 * DAY,
  }),
  /** Tighter: completed 7 days, failed/cancelled/expired 30 days, consumed signals 7 days. */
  TIGHT: frozen({
    completed: 7 * DAY,
    failed: 30 * DAY,
    cancelled: 30 * DAY,
    expired: 30 * DAY,
    consumedSignals: 7 * DAY,
  }),
});

const POLICY_EXPECTED = 'a retention policy object or false';

/** The largest window accepted: about 100 years. */
const MAX_WINDOW = 3_200_000_000;

/**
 * Check a policy and turn it into the per-status windows written onto job rows.
 * `false` keeps everything (no windows). Throws InvalidRetentionPolicyError naming the field.
 */
export function freezeRetention(policy: unknown, field = 'retention'): FrozenRetention {
  if (policy === false) return {};
  if (!isRecord(policy)) throw new InvalidRetentionPolicyError(field, POLICY_EXPECTED, policy);
  const input = policy;
  const keys = Object.keys(input);
  const ttlShape = keys.some((k) => k === 'ttlSeconds' || k === 'statuses');
  const windowShape = keys.some((k) => isOneOf(WINDOW_KEYS, k));
  if (ttlShape && windowShape) {
    throw new InvalidRetentionPolicyError(
      field,
      'either { ttlSeconds, statuses? } or per-status windows, not both',
      keys.join(', '),
    );
  }
  for (const key of keys) {
    if (key !== 'ttlSeconds' && key !== 'statuses' && !isOneOf(WINDOW_KEYS, key)) {
      throw new InvalidRetentionPolicyError(
        `${field}.${key}`,
        `one of ttlSeconds, statuses, ${WINDOW_KEYS.join(', ')}`,
        key,
      );
    }
  }
  if (ttlShape) {
    if (!('ttlSeconds' in input))
      throw new InvalidRetentionPolicyError(`${field}.ttlSeconds`, 'a number of seconds');
    const ttl = checkWindow(input.ttlSeconds, `${field}.ttlSeconds`);
    const statuses =
      input.statuses === undefined ? FINISHED_STATUSES : checkStatuses(input.statuses, `${field}.statuses`);
    const frozen: FrozenRetention = {};
    for (const status of statuses) frozen[status] = ttl;
    return dropZeros(frozen);
  }
  const frozen: FrozenRetention = {};
  for (const key of WINDOW_KEYS) {
    if (input[key] !== undefined) frozen[key] = checkWindow(input[key], `${field}.${key}`);
  }
  return dropZeros(frozen);
}

function checkWindow(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_WINDOW) {
    throw new InvalidRetentionPolicyError(field, `a whole number of seconds from 0 to ${MAX_WINDOW}`, value);
  }
  return value;
}

function checkStatuses(value: unknown, field: string): FinishedStatus[] {
  if (!Array.isArray(value))
    throw new InvalidRetentionPolicyError(field, 'an array of finished statuses', value);
  // map, as forEach, skips the holes of a sparse array and keeps them in what it returns.
  return value.map((status: unknown, index) => {
    if (!isOneOf(FINISHED_STATUSES, status)) {
      throw new InvalidRetentionPolicyError(
        `${field}[${index}]`,
        `a finished status (${FINISHED_STATUSES.join(', ')})`,
        status,
      );
    }
    return status;
  });
}

/** A window of 0 means kept forever, the same as an absent window. */
function dropZeros(frozen: FrozenRetention): FrozenRetention {
  for (const key of keysOf(frozen)) if (frozen[key] === 0) delete frozen[key];
  return frozen;
}

/**
 * What a valid policy keeps forever without saying so. `omitted` lists the finished
 * statuses it does not name at all: the trap of a policy written as `{ completed, failed }`,
 * which keeps cancelled and expired jobs forever. A status given a window of 0 is kept on
 * purpose and is not listed. `keepsAll` is a policy that keeps everything on purpose
 * (`false`, `Retention.KEEP`, `{}`, or every status at 0).
 */
export function policyGaps(policy: unknown): { omitted: JobStatus[]; keepsAll: boolean } {
  if (policy === false) return { omitted: [], keepsAll: true };
  // Only a checked policy comes here; anything else is refused as freezeRetention refuses it.
  if (!isRecord(policy)) throw new InvalidRetentionPolicyError('retention', POLICY_EXPECTED, policy);
  const input = policy;
  let named: readonly string[];
  if ('ttlSeconds' in input) {
    named =
      input.ttlSeconds === 0 || input.statuses === undefined
        ? FINISHED_STATUSES
        : checkStatuses(input.statuses, 'retention.statuses');
  } else {
    const keys = Object.keys(input);
    named = keys.length === 0 ? FINISHED_STATUSES : FINISHED_STATUSES.filter((status) => status in input);
  }
  const omitted = FINISHED_STATUSES.filter((status) => !named.includes(status));
  const frozen = freezeRetention(policy);
  const keepsAll = omitted.length === 0 && FINISHED_STATUSES.every((status) => !frozen[status]);
  return { omitted, keepsAll };
}
