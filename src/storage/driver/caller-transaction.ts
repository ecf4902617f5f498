import { InvalidOptionError } from '../../errors.js';
import { hasProperties } from '../../model/guards.js';
import { clientParams, type Queryable, type QueryResult, resultOf, type Statement } from './driver.js';

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

/** Anything with a query() method: what a caller's transaction is recognised by. */
function isCallerTransaction(tx: unknown): tx is CallerTransaction {
  return hasProperties(tx) && typeof tx.query === 'function';
}

/** Wrap a caller's transaction so Tidemark's queries run inside it. */
export function wrapCallerTransaction(tx: unknown): Queryable {
  if (!isCallerTransaction(tx)) {
    throw new InvalidOptionError('tx', 'a pg client or a PGlite transaction (an object with query())', tx);
  }
  const caller = tx;
  return {
    async query<Row>(
      statement: string | Statement,
      params: readonly unknown[] = [],
    ): Promise<QueryResult<Row>> {
      const text = typeof statement === 'string' ? statement : statement.text;
      const result = await caller.query(text, clientParams(params));
      return resultOf(result.rows, result.rowCount ?? result.affectedRows ?? result.rows.length);
    },
  };
}
