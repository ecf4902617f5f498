import { defineQuery, defineSizedQuery } from './define-query.js';
import { GATE, GATE_OPEN, GATE_STATE, type GateRow } from './gate.js';

/**
 * The audit of operator actions (`audit_log`): one row per action, written beside it, read
 * newest first by keyset on id, and aged out on its own window by the retention pass.
 */

/** An audit row as stored. */
export interface StoredAudit {
  id: string;
  at: Date;
  actor: string;
  source: string;
  action: string;
  target: Record<string, unknown> | null;
  rows: number;
}

export const recordAudit = defineQuery<
  { actor: string; source: string; action: string; target: string; rows: number },
  { id: string }
>(
  'recordAudit',
  /* sql */ `
  insert into /*schema*/audit_log (at, actor, source, action, target, rows)
  values (now(), @actor, @source, @action, @target::jsonb, @rows)
  returning id::text as id`,
);

/** What a page of the audit asks for: each filter optional, `after` the last id of the page before. */
export interface AuditWindow {
  since: Date | null;
  until: Date | null;
  action: string | null;
  actor: string | null;
  after: string | null;
  limit: number;
}

/** A page of the audit, newest first, below `after` (an id; null for the first page). */
export const listAudit = defineQuery<{ [K in keyof AuditWindow]: AuditWindow[K] }, StoredAudit>(
  'listAudit',
  /* sql */ `
  select a.id::text as id, a.at, a.actor, a.source, a.action, a.target, a.rows
    from /*schema*/audit_log a
   where (@since::timestamptz is null or a.at >= @since::timestamptz)
     and (@until::timestamptz is null or a.at < @until::timestamptz)
     and (@action::text is null or a.action = @action::text)
     and (@actor::text is null or a.actor = @actor::text)
     and (@after::bigint is null or a.id < @after::bigint)
   order by a.id desc
   limit @limit`,
);

/** Audit rows older than the audit's window (`retain_seconds`), behind the retention gate, oldest first. */
export const deleteExpiredAudit = defineSizedQuery<{ retain_seconds: number }, GateRow & { n: number }>(
  'deleteExpiredAudit',
  /* sql */ `
  with ${GATE},
  doomed as (
    select id from /*schema*/audit_log
     where at < now() - make_interval(secs => @retain_seconds::double precision) and ${GATE_OPEN}
     order by at
     limit @batch_size
       for update skip locked
  ),
  deleted as (delete from /*schema*/audit_log a where a.id = any(array(select id from doomed)) returning a.id)
  select (select count(*) from deleted)::int as n, ${GATE_STATE}`,
);
