import { HoldsChangingError, RetentionPausedError } from '../errors.js';
import { toDate } from './rows.js';
import type { GateRow } from './sql/gate.js';

export type { GateRow } from './sql/gate.js';

/** A statement that met a hold placed after its snapshot runs again; more times than this is an error. */
const GATE_ATTEMPTS = 20;

/**
 * Run a statement that carries the retention gate. While retention is paused it deleted
 * nothing: RetentionPausedError. When a hold was placed after its snapshot was taken it
 * deleted nothing either: it runs again, with a new snapshot.
 */
export async function throughGate<Row extends GateRow>(run: () => Promise<Row[]>): Promise<Row> {
  for (let attempt = 1; ; attempt++) {
    const [row] = await run();
    if (row.paused) throw new RetentionPausedError(row.paused_reason, toDate(row.paused_at));
    if (row.fresh) return row;
    if (attempt >= GATE_ATTEMPTS) {
      throw new HoldsChangingError(GATE_ATTEMPTS);
    }
  }
}
