import knex, { type Knex } from 'knex';
import { fromKnex } from '../../src/storage/adapters/knex.js';
import { adapterScenarios, rollingBack } from '../support/adapter-scenarios.js';
import { PG_URL } from '../support/databases.js';

adapterScenarios('Knex transactions (tidemark/knex)', async () => {
  const db = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 2 } });
  return {
    commit: (fn) => db.transaction((trx) => fn(fromKnex(trx))),
    rollback: (fn) =>
      rollingBack<Knex.Transaction>(
        (body) => db.transaction(body),
        (trx) => fn(fromKnex(trx)),
      ),
    adaptRoot: () => fromKnex(db as never),
    close: () => db.destroy(),
  };
});
