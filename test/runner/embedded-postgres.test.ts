import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../scripts/embedded-postgres.mjs';

// The server `npm test` starts when no PostgreSQL answers: what a machine with Node alone gets.
test('the embedded PostgreSQL answers on its own port, and stop removes it', async () => {
  // The package's version starts with the PostgreSQL version it ships.
  const packageJson = join(
    dirname(createRequire(import.meta.url).resolve('embedded-postgres')),
    '..',
    'package.json',
  );
  const shipped = Number.parseInt(JSON.parse(readFileSync(packageJson, 'utf8')).version, 10);
  const server = await startEmbeddedPostgres({ database: 'fallback' });
  try {
    assert.ok(existsSync(server.dir));
    assert.equal(server.major, shipped);
    assert.match(server.url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/fallback$/);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string; db: string }>(
        'select version(), current_database() as db',
      );
      assert.match(rows[0].version, new RegExp(`^PostgreSQL ${shipped}\\.`));
      assert.equal(rows[0].db, 'fallback');
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
  assert.equal(existsSync(server.dir), false);
  assert.throws(() => process.kill(server.pid, 0), { code: 'ESRCH' });
  await server.stop();
});

test('a named server that does not answer fails the run at once', () => {
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'test/runner'], {
    encoding: 'utf8',
    env: {
      ...process.env,
      TIDEMARK_TEST_DRIVERS: 'pg',
      TIDEMARK_TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
      TIDEMARK_TEST_EMBEDDED_PG: '',
    },
  });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /PostgreSQL is unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/test/);
});
