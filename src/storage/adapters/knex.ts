import type { Knex } from 'knex';
import type { CallerTransaction } from '../driver/caller-transaction.js';
import { checkTransaction } from './check-transaction.js';
import { toKnexBindings } from './knex-placeholders.js';

/**
 * Tidemark's statements in a Knex transaction (`knex.transaction(async (trx) => …)` on
 * PostgreSQL): `tm.addJob(job, { tx: fromKnex(trx) })` is written in it, committed and rolled
 * back with it. Statements go through `trx.raw` with Knex's `?` bindings (see
 * toKnexBindings). Loads nothing from `knex`.
 */
export function fromKnex(trx: Knex.Transaction): CallerTransaction {
  const checked = checkTransaction(
    trx,
    'a Knex transaction (the trx of knex.transaction), not the knex instance',
    (value) => value.isTransaction === true && typeof value.raw === 'function',
  ) as unknown as Knex.Transaction;
  return {
    async query(text, params = []) {
      const { sql, bindings } = toKnexBindings(text, params);
      const result: { rows?: unknown[]; rowCount?: number | null } = await checked.raw(
        sql,
        bindings as Knex.RawBinding[],
      );
      const rows = result.rows ?? [];
      return { rows, rowCount: result.rowCount ?? rows.length };
    },
  };
}
