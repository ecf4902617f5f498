import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import type { AuditAction, AuditEntry, AuditOptions, AuditSource, AuditTarget } from '../model/audit.js';
import { isOneOf } from '../model/guards.js';
import { checkKnownFields, checkObject, checkString } from '../options/check.js';

/** Who acted and from where, checked: what every audit row of one call carries. */
export interface AuditBy {
  actor: string;
  source: AuditSource;
}

const SOURCES: readonly AuditSource[] = ['api', 'dashboard', 'cli'];

/** An operator call's `{ actor, source }`, checked (InvalidOptionError naming the field); defaults `'api'`. */
export function checkAuditOptions(options: AuditOptions | undefined, field = 'options'): AuditBy {
  if (options === undefined) return { actor: 'api', source: 'api' };
  const record = checkObject(options, field);
  checkKnownFields(record, field, ['actor', 'source']);
  const source = record.source ?? 'api';
  if (!isOneOf(SOURCES, source)) {
    throw new InvalidOptionError(`${field}.source`, "'api', 'dashboard' or 'cli'", record.source);
  }
  const actor = record.actor === undefined ? source : checkString(record.actor, `${field}.actor`);
  return { actor, source };
}

/** The row for an action of `by` on `target`, before its count is known. */
export function auditEntry(by: AuditBy, action: AuditAction, target: AuditTarget): AuditEntry {
  return { ...by, action, target, rows: 0 };
}

/**
 * Run an operator action and, once it succeeded, record it with the rows it changed (`rows`
 * of its result). An action that fails writes no audit row. An action that is one statement
 * is recorded right after it commits; those that run in a transaction of their own (an
 * explicit delete, a hold) record their row inside it instead, through their storage call.
 */
export async function audited<T>(
  core: EngineCore,
  entry: AuditEntry,
  run: () => Promise<T>,
  rows: (result: T) => number = () => 1,
): Promise<T> {
  const result = await run();
  await core.storage.audit.record({ ...entry, rows: rows(result) });
  return result;
}

/** The `actor` and `source` of a call's options object, when it carries either. */
export function auditOptionsOf(options: unknown): AuditOptions | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const { actor, source } = options as AuditOptions;
  if (actor === undefined && source === undefined) return undefined;
  return { ...(actor !== undefined ? { actor } : {}), ...(source !== undefined ? { source } : {}) };
}
