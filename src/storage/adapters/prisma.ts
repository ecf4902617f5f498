import type { CallerTransaction } from '../driver/caller-transaction.js';
import { checkTransaction } from './check-transaction.js';

/** The part of Prisma's interactive transaction client the adapter uses. */
export interface PrismaTransactionClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/**
 * Tidemark's statements in a Prisma interactive transaction (`prisma.$transaction(async (tx) =>
 * …)`, PostgreSQL): `tm.addJob(job, { tx: fromPrisma(tx) })` is written in it, committed and
 * rolled back with it. Prisma reads int8 as BigInt where `pg` gives text; such values are
 * given back as text, as Tidemark reads them elsewhere. Loads nothing from Prisma.
 */
export function fromPrisma(tx: PrismaTransactionClient): CallerTransaction {
  const client = checkTransaction(
    tx,
    'a Prisma interactive transaction client (the tx of prisma.$transaction(async (tx) => ...)), not the PrismaClient',
    // The client has $connect; the one given to a transaction's callback has not (a statement
    // through the client would run in a transaction of its own).
    (value) => typeof value.$queryRawUnsafe === 'function' && typeof value.$connect !== 'function',
  ) as unknown as PrismaTransactionClient;
  return {
    async query(text, params = []) {
      const rows = await client.$queryRawUnsafe<Record<string, unknown>[]>(text, ...params);
      // $queryRawUnsafe answers rows only: Tidemark reads the rows of its statements, never a count.
      return { rows: rows.map(bigintsAsText), rowCount: rows.length };
    },
  };
}

function bigintsAsText(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'bigint') row[key] = String(value);
  }
  return row;
}
