import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import pg from 'pg';
import postgres from 'postgres';
import { fromDrizzle } from '../../src/storage/adapters/drizzle.js';
import { adapterScenarios, rollingBack } from '../support/adapter-scenarios.js';
import { PG_URL } from '../support/databases.js';

adapterScenarios('Drizzle transactions on node-postgres (tidemark/drizzle)', async () => {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const db = drizzleNodePostgres(pool);
  type Tx = Parameters<Parameters<typeof db.transaction>[0]>[0];
  return {
    commit: (fn) => db.transaction((tx) => fn(fromDrizzle(tx))),
    rollback: (fn) =>
      rollingBack<Tx>(
        (body) => db.transaction(body),
        (tx) => fn(fromDrizzle(tx)),
      ),
    adaptRoot: () => fromDrizzle(db as never),
    close: () => pool.end(),
  };
});

adapterScenarios('Drizzle transactions on postgres.js (tidemark/drizzle)', async () => {
  const client = postgres(PG_URL, { max: 2, onnotice: () => {} });
  const db = drizzlePostgresJs(client);
  type Tx = Parameters<Parameters<typeof db.transaction>[0]>[0];
  return {
    commit: (fn) => db.transaction((tx) => fn(fromDrizzle(tx))),
    rollback: (fn) =>
      rollingBack<Tx>(
        (body) => db.transaction(body),
        (tx) => fn(fromDrizzle(tx)),
      ),
    adaptRoot: () => fromDrizzle(db as never),
    close: () => client.end(),
  };
});
