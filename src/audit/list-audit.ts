import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { AUDIT_ACTIONS, type AuditAction, type AuditRecord } from '../model/audit.js';
import { isOneOf } from '../model/guards.js';
import {
  checkDate,
  checkId,
  checkInteger,
  checkKnownFields,
  checkObject,
  checkString,
} from '../options/check.js';
import type { AuditWindow } from '../storage/storage.js';

/** What `tm.listAudit()` reads: each filter optional, newest first. */
export interface ListAuditOptions {
  /** Only actions recorded at or after this time. */
  since?: Date | string;
  /** Only actions recorded before this time (not after `since`). */
  until?: Date | string;
  /** Only this action (one of `AUDIT_ACTIONS`). */
  action?: AuditAction;
  /** Only this actor. */
  actor?: string;
  /** Rows per page, 1 to 500 (default 50). */
  limit?: number;
  /** The `id` of the last row of the page before: the next page starts below it. */
  after?: string;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const FIELDS = ['since', 'until', 'action', 'actor', 'limit', 'after'];

/**
 * Check a read of the audit, field by field (InvalidOptionError naming the field, a range whose
 * `since` is after its `until` refused as `since`), into the window storage reads.
 */
export function checkListAudit(input: ListAuditOptions | undefined): AuditWindow {
  const options = checkObject(input ?? {}, 'options');
  checkKnownFields(options, 'options', FIELDS);
  const since = options.since === undefined ? null : checkDate(options.since, 'since');
  const until = options.until === undefined ? null : checkDate(options.until, 'until');
  if (since && until && since.getTime() > until.getTime()) {
    throw new InvalidOptionError('since', `a time not after 'until' (${until.toISOString()})`, since);
  }
  if (options.action !== undefined && !isOneOf(AUDIT_ACTIONS, options.action)) {
    throw new InvalidOptionError('action', `one of ${AUDIT_ACTIONS.join(', ')}`, options.action);
  }
  return {
    since,
    until,
    action: (options.action as AuditAction | undefined) ?? null,
    actor: options.actor === undefined ? null : checkString(options.actor, 'actor'),
    after: options.after === undefined ? null : checkId(options.after, 'after', 'an audit row id'),
    limit: options.limit === undefined ? DEFAULT_LIMIT : checkInteger(options.limit, 'limit', 1, MAX_LIMIT),
  };
}

/** A page of recorded operator actions, newest first. */
export function listAudit(core: EngineCore, window: AuditWindow): Promise<AuditRecord[]> {
  return core.storage.audit.list(window);
}
