/** Where an operator action came from. */
export type AuditSource = 'api' | 'dashboard' | 'cli';

/** The operator actions the audit records. */
export const AUDIT_ACTIONS = [
  'retry',
  'cancel',
  'run-now',
  'pause',
  'resume',
  'delete',
  'delete-subtree',
  'bulk-retry',
  'bulk-cancel',
  'bulk-run-now',
  'purge',
  'hold',
  'release-hold',
  'pause-retention',
  'resume-retention',
  'apply-retention',
  'pause-queue',
  'resume-queue',
  'pause-schedule',
  'resume-schedule',
  'trigger-schedule',
  'unschedule',
  'set-key-limit',
  'pause-key',
  'resume-key',
  'signal',
  'fork',
  'bulk-fork',
] as const;

/** One of the operator actions the audit records (`AUDIT_ACTIONS`). */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acts, as an operator call takes it (`tm.cancelJob(id, { actor })`): the name recorded in
 * the audit, and where the call came from. Both are optional: an API call is recorded as
 * actor `'api'`, source `'api'`; the dashboard and the CLI pass their own.
 */
export interface AuditOptions {
  /** Who acted: a person, a token's name, a service (1 to 200 characters). Default `'api'`. */
  actor?: string;
  /** Where the call came from. Default `'api'`; the dashboard and the CLI set theirs. */
  source?: AuditSource;
}

/**
 * What an action was aimed at: one job, a queue, a schedule, a key, a hold, or the filter of a
 * bulk action or a purge. Only the fields that apply are present.
 */
export interface AuditTarget {
  jobId?: string;
  queue?: string;
  schedule?: string;
  key?: string;
  holdId?: string;
  /** A bulk action's or a purge's filter, as given. */
  filter?: Record<string, unknown>;
  /** A signal's name, a hold's or a pause's reason, a key's new limit: the action's detail. */
  detail?: string;
}

/** One recorded operator action, as `tm.listAudit()` returns it (newest first). */
export interface AuditRecord {
  id: string;
  /** When it was recorded, by the database's clock. */
  at: Date;
  actor: string;
  source: AuditSource;
  action: AuditAction;
  target: AuditTarget;
  /** Rows the action changed: jobs retried, cancelled or deleted, schedules paused, holds placed. */
  rows: number;
}

/** An audit row to write: the action's who, what and how many. */
export interface AuditEntry {
  actor: string;
  source: AuditSource;
  action: AuditAction;
  target: AuditTarget;
  rows: number;
}
