import { auditEntry, audited, checkAuditOptions } from './audit/audited.js';
import { checkListAudit, type ListAuditOptions, listAudit } from './audit/list-audit.js';
import type { EngineCore } from './engine-core.js';
import { EngineHandle } from './engine-handle.js';
import type { AuditAction, AuditOptions, AuditRecord, AuditTarget } from './model/audit.js';

/**
 * The audit of operator actions: `listAudit` reads it, and `audit` runs an operator call so
 * that it is recorded (who, from where, what, how many rows). `Tidemark` extends it; see the
 * API reference and docs/retention.md for its window.
 */
export abstract class AuditCalls extends EngineHandle {
  /**
   * Recorded operator actions, newest first: each filter optional (`since` at or after, `until`
   * before, `action`, `actor`), `limit` rows (1 to 500, default 50), `after` the last `id` of
   * the page before. A bad field or a range whose `since` is after its `until` is refused with
   * InvalidOptionError naming the field.
   */
  async listAudit(options?: ListAuditOptions): Promise<AuditRecord[]> {
    const window = checkListAudit(options);
    return this.whenReady((core) => listAudit(core, window));
  }

  /**
   * Run an operator use case once the engine is ready and record it with the rows it changed
   * (`rows` of its result, 1 unless given). The options are checked before anything runs;
   * a failing action records nothing.
   */
  protected async audit<T>(
    options: AuditOptions | undefined,
    action: AuditAction,
    target: AuditTarget,
    run: (core: EngineCore) => Promise<T>,
    rows?: (result: T) => number,
  ): Promise<T> {
    const by = checkAuditOptions(options);
    return this.whenReady((core) => audited(core, auditEntry(by, action, target), () => run(core), rows));
  }
}
