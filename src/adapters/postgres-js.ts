import type { ReservedSql, TransactionSql } from 'postgres';
import { InvalidOptionError } from '../errors.js';
import type { CallerTransaction } from '../storage/storage.js';
import { checkTransaction } from './check-transaction.js';

/** The part of a postgres.js client the adapter uses. */
interface UnsafeClient {
  unsafe(text: string, params: unknown[]): PromiseLike<unknown[] & { count?: number | null }>;
  options?: {
    transform?: { column?: { from?: unknown }; value?: { from?: unknown }; row?: { from?: unknown } };
  };
}

/**
 * Tidemark's statements in a postgres.js transaction (the `sql` given to `sql.begin(async (sql)
 * => …)`, or a reserved connection): `tm.addJob(job, { tx: fromPostgresJs(sql) })` is written in
 * it, committed and rolled back with it. A client that transforms what it reads (`transform:
 * postgres.camel`, ...) is refused: Tidemark reads its own column names and values as stored.
 * Loads nothing from `postgres`.
 */
export function fromPostgresJs<Types extends Record<string, unknown>>(
  sql: TransactionSql<Types> | ReservedSql<Types>,
): CallerTransaction {
  const client = checkTransaction(
    sql,
    'a postgres.js transaction (the sql of sql.begin) or reserved connection, not the pool',
    (value) =>
      typeof value.unsafe === 'function' &&
      (typeof value.savepoint === 'function' || typeof value.release === 'function'),
  ) as unknown as UnsafeClient;
  return wrapUnsafeClient(client);
}

/** A postgres.js client's `unsafe(text, params)` as a CallerTransaction (also drizzle's postgres-js session). */
export function wrapUnsafeClient(client: UnsafeClient): CallerTransaction {
  const transform = client.options?.transform;
  if (transform?.column?.from || transform?.value?.from || transform?.row?.from) {
    throw new InvalidOptionError(
      'tx',
      'a postgres.js client without a transform of what it reads (Tidemark reads its own columns as stored)',
      'a client with transform',
    );
  }
  return {
    async query(text, params = []) {
      const rows = await client.unsafe(text, params);
      return { rows: [...rows], rowCount: rows.count ?? rows.length };
    },
  };
}
