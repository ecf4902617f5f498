import type { ReservedSql, TransactionSql } from 'postgres';
import { InvalidOptionError } from '../../errors.js';
import type { CallerTransaction } from '../driver/caller-transaction.js';
import { checkTransaction } from './check-transaction.js';

/** The part of a postgres.js client the adapter uses. */
interface UnsafeClient {
  unsafe(text: string, params: unknown[]): PromiseLike<unknown[] & { count?: number | null }>;
  typed(value: unknown, oid: number): unknown;
}

/**
 * PostgreSQL's `unknown` type. postgres.js picks a parameter's serializer from the type the
 * server describes: a JSON text bound to `$1::jsonb` would be serialised again (a JSON string
 * of the text). Strings declared `unknown` are sent as they are, and the server infers their
 * type as it does for `pg`, which sends every parameter untyped.
 */
const UNKNOWN_OID = 705;

/**
 * Tidemark's statements in a postgres.js transaction (the `sql` given to `sql.begin(async (sql)
 * => …)`, or a reserved connection): `tm.addJob(job, { tx: fromPostgresJs(sql) })` is written in
 * it, committed and rolled back with it. A client that transforms what it reads (`transform:
 * postgres.camel`, ...) is refused at its first statement: Tidemark reads its own column names
 * and JSON as stored. Loads nothing from `postgres`.
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
  let checked: Promise<void> | undefined;
  return {
    async query(text, params = []) {
      checked ??= refuseTransforms(client);
      await checked;
      const values = params.map((value) =>
        typeof value === 'string' ? client.typed(value, UNKNOWN_OID) : value,
      );
      const rows = await client.unsafe(text, values);
      return { rows: [...rows], rowCount: rows.count ?? rows.length };
    },
  };
}

/**
 * A client made with `transform` (`postgres.camel`, ...) renames the columns and JSON keys it
 * reads, and a transaction does not show its options: one probe, before the first statement,
 * sees whether names come back as written. InvalidOptionError naming `tx` when they do not.
 */
async function refuseTransforms(client: UnsafeClient): Promise<void> {
  const [row] = await client.unsafe(`select '{"json_key":1}'::jsonb as column_name`, []);
  const probe = row as Record<string, unknown> | undefined;
  const json = probe?.column_name as Record<string, unknown> | undefined;
  if (json?.json_key !== 1) {
    throw new InvalidOptionError(
      'tx',
      'a postgres.js client without transform (Tidemark reads its columns and JSON as stored)',
      'a client whose transform renamed them',
    );
  }
}
