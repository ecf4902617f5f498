import type { AuditAction, AuditEntry, AuditRecord, AuditSource, AuditTarget } from '../model/audit.js';
import type { Queryable } from './driver/driver.js';
import type { Runner } from './runner.js';
import type { AuditWindow } from './sql/audit.js';
import * as sql from './sql/audit.js';

export type { AuditWindow } from './sql/audit.js';

/** Write one audit row: on its own, or on `on`, inside the action's own transaction. */
export async function record(db: Runner, entry: AuditEntry, on?: Queryable): Promise<void> {
  await db.run(
    sql.recordAudit,
    {
      actor: entry.actor,
      source: entry.source,
      action: entry.action,
      target: JSON.stringify(entry.target),
      rows: entry.rows,
    },
    on,
  );
}

/** A page of the audit, newest first. */
export async function list(db: Runner, window: AuditWindow): Promise<AuditRecord[]> {
  const rows = await db.run(sql.listAudit, window);
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    actor: r.actor,
    source: r.source as AuditSource,
    action: r.action as AuditAction,
    target: (r.target ?? {}) as AuditTarget,
    rows: Number(r.rows),
  }));
}
