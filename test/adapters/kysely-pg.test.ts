import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { fromKysely } from '../../src/storage/adapters/kysely.js';
import { adapterScenarios, rollingBack } from '../support/adapter-scenarios.js';
import { PG_URL } from '../support/databases.js';

adapterScenarios('Kysely transactions (tidemark/kysely)', async () => {
  const db = new Kysely<Record<string, never>>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: PG_URL, max: 2 }) }),
  });
  return {
    commit: (fn) => db.transaction().execute((trx) => fn(fromKysely(trx))),
    rollback: (fn) =>
      rollingBack<Transaction<Record<string, never>>>(
        (body) => db.transaction().execute(body),
        (trx) => fn(fromKysely(trx)),
      ),
    adaptRoot: () => fromKysely(db as never),
    close: () => db.destroy(),
  };
});
