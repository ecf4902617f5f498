import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SchemaNotFoundError, SchemaTooNewError, Tidemark } from '../../src/index.js';
import { latestVersion, migrations } from '../../src/storage/migrations/index.js';
import { freshSchema, PG_URL, rawQuery, sharedPgliteInstance } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

describe('migration list', () => {
  test('versions are contiguous from 1 and the latest is the last', () => {
    assert.ok(migrations.length > 0);
    migrations.forEach((migration, index) => {
      assert.equal(migration.version, index + 1);
      assert.ok(migration.name.length > 0);
      assert.ok(
        migration.sql.includes('/*schema*/'),
        `migration ${migration.version} uses the schema marker`,
      );
    });
    assert.equal(latestVersion, migrations[migrations.length - 1].version);
  });
});

describeEachDriver('migrations', ({ kind, open }) => {
  const database = async () => (kind === 'pg' ? PG_URL : await sharedPgliteInstance());

  test('open applies every migration once and records it', async () => {
    const tm = await open();
    const rows = await rawQuery<{ version: number; name: string }>(
      tm,
      `select version, name from "${tm.schema}".tidemark_migrations order by version`,
    );
    assert.deepEqual(
      rows.map((r) => [Number(r.version), r.name]),
      migrations.map((m) => [m.version, m.name]),
    );
  });

  test('two engines opening one new schema at once both succeed; it is migrated once', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([open({ schema }), open({ schema })]);
    assert.equal(a.schema, schema);
    assert.equal(b.schema, schema);
    const rows = await rawQuery<{ version: number; n: number }>(
      a,
      `select version, count(*)::int as n from "${schema}".tidemark_migrations group by version order by version`,
    );
    assert.deepEqual(
      rows.map((r) => [Number(r.version), r.n]),
      migrations.map((m) => [m.version, 1]),
    );
    // both work on it
    a.createQueue({ name: 'q' });
    const { id } = await a.addJob({ queue: 'q' });
    assert.equal((await b.getJob(id))?.id, id);
  });

  test('reopening a migrated schema applies nothing', async () => {
    const tm = await open();
    const again = await open({ schema: tm.schema });
    const [row] = await rawQuery<{ n: number }>(
      again,
      `select count(*)::int as n from "${tm.schema}".tidemark_migrations`,
    );
    assert.equal(row.n, migrations.length);
  });

  test('a schema migrated by newer code is refused with SchemaTooNewError', async () => {
    const tm = await open();
    await rawQuery(
      tm,
      `insert into "${tm.schema}".tidemark_migrations (version, name) values ($1, 'from the future')`,
      [latestVersion + 1],
    );
    await assert.rejects(Tidemark.open({ database: await database(), schema: tm.schema }), (e: unknown) => {
      assert.ok(e instanceof SchemaTooNewError);
      assert.equal(e.code, 'SCHEMA_TOO_NEW');
      assert.equal(e.details.databaseVersion, latestVersion + 1);
      assert.equal(e.details.codeVersion, latestVersion);
      return true;
    });
  });

  test('migrate: false writes nothing: a missing or behind schema is SchemaNotFoundError', async () => {
    const tm = await open();
    const missing = freshSchema();
    await assert.rejects(
      Tidemark.open({ database: await database(), schema: missing, migrate: false }),
      (e: unknown) => {
        assert.ok(e instanceof SchemaNotFoundError);
        assert.equal(e.code, 'SCHEMA_NOT_FOUND');
        assert.equal(e.schema, missing);
        assert.match(e.message, new RegExp(`no Tidemark schema '${missing}' here`));
        return true;
      },
    );
    const created = await rawQuery(tm, 'select 1 from pg_namespace where nspname = $1', [missing]);
    assert.deepEqual(created, []);

    await rawQuery(tm, `delete from "${tm.schema}".tidemark_migrations where version = $1`, [latestVersion]);
    await assert.rejects(
      Tidemark.open({ database: await database(), schema: tm.schema, migrate: false }),
      (e: unknown) => {
        assert.ok(e instanceof SchemaNotFoundError);
        assert.match(
          e.message,
          new RegExp(
            `at migration ${latestVersion - 1} but this Tidemark needs ${latestVersion}: run 'tidemark migrate'`,
          ),
        );
        return true;
      },
    );
    await rawQuery(
      tm,
      `insert into "${tm.schema}".tidemark_migrations (version, name) values ($1, 'restored')`,
      [latestVersion],
    );
    const ready = await Tidemark.open({ database: await database(), schema: tm.schema, migrate: false });
    await ready.close();
  });
});
