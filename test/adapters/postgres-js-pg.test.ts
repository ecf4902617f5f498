import assert from 'node:assert/strict';
import { test } from 'node:test';
import postgres, { type TransactionSql } from 'postgres';
import { InvalidOptionError } from '../../src/index.js';
import { fromPostgresJs } from '../../src/storage/adapters/postgres-js.js';
import { adapterScenarios, rollingBack } from '../support/adapter-scenarios.js';
import { PG_URL } from '../support/databases.js';

adapterScenarios('postgres.js transactions (tidemark/postgres-js)', async () => {
  const sql = postgres(PG_URL, { max: 2, onnotice: () => {} });
  return {
    commit: (fn) => sql.begin((tx) => fn(fromPostgresJs(tx))),
    rollback: (fn) =>
      rollingBack<TransactionSql>(
        (body) => sql.begin(body),
        (tx) => fn(fromPostgresJs(tx)),
      ),
    adaptRoot: () => fromPostgresJs(sql as never),
    close: () => sql.end(),
  };
});

test('a postgres.js client that transforms what it reads is refused: Tidemark reads its columns as stored', async () => {
  const sql = postgres(PG_URL, { max: 1, transform: postgres.camel });
  try {
    await sql.begin(async (tx) => {
      await assert.rejects(
        fromPostgresJs(tx).query('select 1'),
        (error: unknown) => error instanceof InvalidOptionError && error.field === 'tx',
      );
    });
  } finally {
    await sql.end();
  }
});
