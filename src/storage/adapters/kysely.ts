import type { CompiledQuery, Transaction } from 'kysely';
import type { CallerTransaction } from '../driver/caller-transaction.js';
import { checkTransaction } from './check-transaction.js';

/**
 * Tidemark's statements in a Kysely transaction (`db.transaction().execute(async (trx) => …)`,
 * or `db.startTransaction().execute()`): `tm.addJob(job, { tx: fromKysely(trx) })` is written
 * in it, committed and rolled back with it. Statements run without the instance's plugins (a
 * CamelCasePlugin would rename the columns Tidemark reads). Loads nothing from `kysely`.
 */
export function fromKysely<DB>(trx: Transaction<DB>): CallerTransaction {
  const checked = checkTransaction(
    trx,
    'a Kysely transaction (the trx of db.transaction().execute), not the Kysely instance',
    (value) => value.isTransaction === true && typeof value.withoutPlugins === 'function',
  ) as unknown as Transaction<DB>;
  const plain = checked.withoutPlugins();
  return {
    async query(text, params = []) {
      const result = await plain.executeQuery<unknown>(rawQuery(text, params));
      return { rows: [...result.rows], rowCount: Number(result.numAffectedRows ?? result.rows.length) };
    },
  };
}

/**
 * What `CompiledQuery.raw(text, params)` makes, built here so nothing of Kysely is imported at
 * run time: the connection reads `sql` and `parameters`; `query` is a raw node for anything
 * that looks at the tree, and the id an object of its own, as plugins key their state on it.
 */
function rawQuery(text: string, params: unknown[]): CompiledQuery<unknown> {
  return {
    sql: text,
    parameters: params,
    query: { kind: 'RawNode', sqlFragments: [text], parameters: [] },
    queryId: { queryId: `tidemark-${++queries}` },
  };
}

let queries = 0;
