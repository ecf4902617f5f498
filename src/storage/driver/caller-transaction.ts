import { InvalidOptionError } from '../../errors.js';
import type { Queryable, QueryResult, Statement } from './driver.js';

/**
 * The structural subset of a caller's transaction that Tidemark uses: a `pg` client inside
 * BEGIN … COMMIT, or the `tx` PGlite passes to `transaction()` callbacks.
 */
export interface CallerTransaction {
  query(
    text: string,
    params?: unknown[],
  ): Promise<{ rows: unknown[]; rowCount?: number | null; affectedRows?: number }>;
}

/** Wrap a caller's transaction so Tidemark's queries run inside it. */
export function wrapCallerTransaction(tx: unknown): Queryable {
  if (!tx || typeof (tx as CallerTransaction).query !== 'function') {
    throw new InvalidOptionError('tx', 'a pg client or a PGlite transaction (an object with query())', tx);
  }
  const caller = tx as CallerTransaction;
  return {
    async query<Row>(
      statement: string | Statement,
      params: readonly unknown[] = [],
    ): Promise<QueryResult<Row>> {
      const text = typeof statement === 'string' ? statement : statement.text;
      const result = await caller.query(text, params as unknown[]);
      return {
        rows: result.rows as Row[],
        rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
      };
    },
  };
}
