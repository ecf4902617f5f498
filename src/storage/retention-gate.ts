import { HoldsChangingError, RetentionPausedError } from '../errors.js';
import type { Queryable } from './driver/driver.js';
import { toDate } from './rows.js';
import type { Runner } from './runner.js';
import { openDeletionBatch } from './sql/batch-plan.js';
import type { GateRow } from './sql/gate.js';

export type { GateRow } from './sql/gate.js';

/** A statement that met a hold placed after its snapshot runs again; more times than this is an error. */
const GATE_ATTEMPTS = 20;

/**
 * Run a statement that carries the retention gate, in a transaction of its own opened by
 * openDeletionBatch: the gate is taken before the statement's snapshot, so holds placed in
 * a tight loop cannot make it stale, and its plan does not depend on statistics. While
 * retention is paused it deleted nothing: RetentionPausedError. Should it still find a hold
 * placed after its snapshot it deleted nothing either, and runs again.
 */
export async function throughGate<Row extends GateRow>(
  storage: Runner,
  run: (tx: Queryable) => Promise<Row[]>,
  timeoutMs = 0,
): Promise<Row> {
  for (let attempt = 1; ; attempt++) {
    const [row] = await inDeletionBatch(storage, run, timeoutMs);
    if (row.paused) throw new RetentionPausedError(row.paused_reason, toDate(row.paused_at));
    if (row.fresh) return row;
    if (attempt >= GATE_ATTEMPTS) {
      throw new HoldsChangingError(GATE_ATTEMPTS);
    }
  }
}

/**
 * Run `fn` in a transaction whose first statement is openDeletionBatch; each statement after
 * it may run `timeoutMs` (0: no limit) before the database cancels it.
 */
export function inDeletionBatch<T>(
  storage: Runner,
  fn: (tx: Queryable) => Promise<T>,
  timeoutMs = 0,
): Promise<T> {
  return storage.driver.transaction(async (tx) => {
    await storage.run(openDeletionBatch, { timeout_ms: timeoutMs }, tx);
    return fn(tx);
  });
}
