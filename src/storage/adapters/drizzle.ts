import type { TablesRelationalConfig } from 'drizzle-orm';
import type { PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { CallerTransaction } from '../driver/caller-transaction.js';
import { checkTransaction } from './check-transaction.js';
import { wrapUnsafeClient } from './postgres-js.js';

/**
 * Tidemark's statements in a Drizzle transaction (`db.transaction(async (tx) => …)` on
 * PostgreSQL: the node-postgres, postgres-js and PGlite drivers): `tm.addJob(job, { tx:
 * fromDrizzle(tx) })` is written in it, committed and rolled back with it. Drizzle's `execute`
 * takes parameters only inside its own `sql` tag, so the statements go to the connection the
 * transaction holds (its session's client), with their parameters bound as Tidemark binds
 * them. Loads nothing from `drizzle-orm`.
 */
export function fromDrizzle<
  QueryResult extends PgQueryResultHKT,
  FullSchema extends Record<string, unknown>,
  Schema extends TablesRelationalConfig,
>(tx: PgTransaction<QueryResult, FullSchema, Schema>): CallerTransaction {
  const checked = checkTransaction(
    tx,
    'a Drizzle transaction (the tx of db.transaction) on node-postgres, postgres-js or PGlite, not the database',
    (value) => typeof value.rollback === 'function' && clientOf(value) !== undefined,
  );
  const client = clientOf(checked) as Record<string, unknown>;
  if (typeof client.unsafe === 'function') return wrapUnsafeClient(client as never);
  const queryable = client as unknown as CallerTransaction;
  return { query: (text, params = []) => queryable.query(text, params) };
}

/**
 * The connection a transaction's session holds: a postgres.js transaction (`unsafe`), or a
 * node-postgres client or PGlite transaction (`query`). Undefined for anything else.
 */
function clientOf(tx: Record<string, unknown>): unknown {
  const session = tx.session as { client?: Record<string, unknown> } | undefined;
  const client = session?.client;
  if (typeof client !== 'object' && typeof client !== 'function') return undefined;
  if (client === null) return undefined;
  return typeof client.unsafe === 'function' || typeof client.query === 'function' ? client : undefined;
}
