import assert from 'node:assert/strict';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DatabaseLockedError, SchemaNotFoundError, silentLogger, Tidemark } from '../../src/index.js';
import { memorySeed } from '../../src/storage/driver/pglite-memory-seed.js';
import {
  fittingSeed,
  SEED_ARCHIVE,
  SEED_MANIFEST,
  type SeedManifest,
  seedMigration,
  setSeedFolder,
  unpackSeed,
} from '../../src/storage/driver/pglite-seed.js';
import { latestVersion, migrations } from '../../src/storage/migrations/index.js';
import { buildPgliteSeed } from '../../src/storage/pglite-seed-build.js';
import { createTestTidemark } from '../../src/testing/index.js';
import { rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { seedBareFolder } from '../support/pglite-boot.js';
import { schemaSnapshot } from '../support/schema-snapshot.js';

const SCHEMA_SNAPSHOT = join('test', 'storage', 'snapshots', 'schema.sql');

/** The identifier initdb gave the database (pg_control's). */
async function systemIdentifier(tm: Tidemark): Promise<string> {
  const rows = await rawQuery<{ id: string }>(
    tm,
    'select system_identifier::text as id from pg_control_system()',
  );
  return rows[0].id;
}

/** Each migration recorded in the folder, and whether it was applied before `since`. */
async function appliedMigrations(tm: Tidemark, since: Date): Promise<{ version: number; before: boolean }[]> {
  const rows = await rawQuery<{ version: number; applied_at: Date }>(
    tm,
    'select version, applied_at from tidemark.tidemark_migrations order by version',
  );
  return rows.map((r) => ({ version: r.version, before: new Date(r.applied_at) < since }));
}

// Embedded folders exist only on PGlite; registered when the run covers it.
if (TEST_DRIVERS.includes('pglite')) {
  describe('a new embedded folder starts from the packaged seed [pglite]', () => {
    const root = mkdtempSync(join(tmpdir(), 'tidemark-seed-test-'));
    // A seed one migration behind this code, as a package that gained a migration since its
    // seed was made would have: its initdb comes from the tests' cached dump, to stay cheap.
    const seed = join(root, 'seed');
    let manifest: SeedManifest;
    before(async () => {
      manifest = await buildPgliteSeed(seed, 'tidemark', {
        upTo: latestVersion - 1,
        prepare: seedBareFolder,
      });
      setSeedFolder(seed);
    });
    /** A copy of the seed whose archive lost its last 100 bytes, its manifest unchanged. */
    const damagedCopy = (name: string) => {
      const damaged = join(root, name);
      mkdirSync(damaged);
      copyFileSync(join(seed, SEED_MANIFEST), join(damaged, SEED_MANIFEST));
      const archive = readFileSync(join(seed, SEED_ARCHIVE));
      writeFileSync(join(damaged, SEED_ARCHIVE), archive.subarray(0, archive.length - 100));
      return damaged;
    };
    after(() => {
      setSeedFolder(null);
      rmSync(root, { recursive: true, force: true });
    });

    test('the open applies the migrations the seed lacks; the folder has the current schema, runs a job and opens again', async () => {
      const folder = join(root, 'from-seed');
      const opening = new Date();
      const tm = await Tidemark.open({ database: folder, logger: silentLogger });
      try {
        // The seed's migrations were applied when it was made; the last one by this open.
        const expected = Array.from({ length: latestVersion }, (_, i) => ({
          version: i + 1,
          before: i + 1 < latestVersion,
        }));
        assert.deepEqual(await appliedMigrations(tm, opening), expected);
        await rawQuery(tm, 'set search_path to tidemark');
        const schema = await schemaSnapshot((text) => rawQuery(tm, text));
        await rawQuery(tm, 'set search_path to public');
        assert.equal(schema, readFileSync(SCHEMA_SNAPSHOT, 'utf8'));
        // The lock files are the opener's: none came from the seed, and the folder is held.
        await assert.rejects(Tidemark.open({ database: folder }), DatabaseLockedError);

        tm.createQueue({ name: 'q', handler: (job) => `done ${String(job.data)}` });
        const { id } = await tm.addJob({ queue: 'q', data: 'seeded' });
        const worker = tm.worker({ pollIntervalSeconds: 0.05 });
        await worker.start();
        assert.equal(await tm.result(id, { timeoutSeconds: 30 }), 'done seeded');
      } finally {
        await tm.close();
      }
      const again = await Tidemark.open({ database: folder, logger: silentLogger });
      try {
        assert.equal((await again.listQueues()).length, 1);
        assert.equal((await appliedMigrations(again, opening)).length, latestVersion);
      } finally {
        await again.close();
      }
    });

    test('a seed is used only with the PGlite, the schema and the migrations it was made with', () => {
      assert.equal(fittingSeed('tidemark', seed)?.migrations.length, latestVersion - 1);
      assert.equal(fittingSeed('elsewhere', seed), null);
      const variants: [string, SeedManifest][] = [
        ['another PGlite', { ...manifest, pglite: `${manifest.pglite}-other` }],
        ['another format', { ...manifest, format: manifest.format + 1 }],
        [
          'a migration changed since',
          {
            ...manifest,
            migrations: manifest.migrations.map((m, i) => (i === 0 ? { ...m, sha256: '0' } : m)),
          },
        ],
        [
          'a migration this code does not have',
          {
            ...manifest,
            migrations: [
              ...migrations.map(seedMigration),
              { version: latestVersion + 1, name: 'newer', sha256: '0' },
            ],
          },
        ],
      ];
      for (const [what, variant] of variants) {
        const folder = join(root, 'variant');
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, SEED_MANIFEST), JSON.stringify(variant));
        assert.equal(fittingSeed('tidemark', folder), null, what);
      }
      assert.equal(fittingSeed('tidemark', join(root, 'no-such-seed')), null);
    });

    test('a damaged archive, or a file already there, leaves the folder as it was', async () => {
      const damaged = damagedCopy('damaged');
      const target = join(root, 'target');
      mkdirSync(target);
      assert.equal(await unpackSeed(target, 'tidemark', damaged), false);
      assert.deepEqual(readdirSync(target), []);

      // A file of the seed's already in the folder: none of it is overwritten or left behind.
      mkdirSync(join(target, 'global'));
      writeFileSync(join(target, 'global', 'pg_control'), 'not ours');
      assert.equal(await unpackSeed(target, 'tidemark', seed), false);
      assert.deepEqual(readdirSync(target), ['global']);
      assert.deepEqual(readdirSync(join(target, 'global')), ['pg_control']);
      assert.equal(readFileSync(join(target, 'global', 'pg_control'), 'utf8'), 'not ours');
    });

    test('a database in memory starts from the seed: the open applies the migrations it lacks, and it runs a job', async () => {
      const opening = new Date();
      const tm = await Tidemark.open({ database: 'memory://', logger: silentLogger });
      const other = await Tidemark.open({ database: 'memory://', logger: silentLogger });
      try {
        const expected = Array.from({ length: latestVersion }, (_, i) => ({
          version: i + 1,
          before: i + 1 < latestVersion,
        }));
        assert.deepEqual(await appliedMigrations(tm, opening), expected);
        // initdb gives each database an identifier of its own; copies of one seed share it.
        assert.equal(await systemIdentifier(tm), await systemIdentifier(other));
        await rawQuery(tm, 'set search_path to tidemark');
        const schema = await schemaSnapshot((text) => rawQuery(tm, text));
        await rawQuery(tm, 'set search_path to public');
        assert.equal(schema, readFileSync(SCHEMA_SNAPSHOT, 'utf8'));

        tm.createQueue({ name: 'q', handler: (job) => `done ${String(job.data)}` });
        const { id } = await tm.addJob({ queue: 'q', data: 'in memory' });
        await tm.worker({ pollIntervalSeconds: 0.05 }).start();
        assert.equal(await tm.result(id, { timeoutSeconds: 30 }), 'done in memory');
        // The other copy is a database of its own.
        assert.deepEqual(await other.listQueues(), []);
      } finally {
        await Promise.all([tm.close(), other.close()]);
      }
    });

    test("in memory, another schema or the test kit's clock drops the seed's schema and migrates its own", async () => {
      const elsewhere = await Tidemark.open({
        database: 'memory://',
        schema: 'elsewhere',
        logger: silentLogger,
      });
      const kit = await createTestTidemark({ logger: silentLogger });
      try {
        const schemas = async (tm: Tidemark) =>
          (
            await rawQuery<{ nspname: string }>(
              tm,
              "select nspname from pg_namespace where nspname in ('tidemark', 'elsewhere') order by 1",
            )
          ).map((s) => s.nspname);
        assert.deepEqual(await schemas(elsewhere), ['elsewhere']);
        assert.deepEqual(await schemas(kit), ['tidemark']);
        assert.equal(await systemIdentifier(elsewhere), await systemIdentifier(kit));
        // Every migration of the kit's schema ran on its clock: a day on, a job is due a day on.
        await kit.clock.advance(86_400);
        kit.createQueue({ name: 'q', handler: () => 'ran' });
        const { id } = await kit.addJob({ queue: 'q' });
        await kit.runUntilIdle();
        assert.equal((await kit.getJob(id))?.startedAt?.getTime(), kit.clock.now().getTime());
      } finally {
        await Promise.all([elsewhere.close(), kit.close()]);
      }
    });

    test('without a seed that fits, or with a damaged one, a database in memory is made by initdb', async () => {
      const damaged = damagedCopy('damaged-for-memory');
      setSeedFolder(damaged);
      try {
        assert.equal(await memorySeed(), null);
        setSeedFolder(join(root, 'no-such-seed'));
        assert.equal(await memorySeed(), null);
      } finally {
        setSeedFolder(seed);
      }
      const seeded = await Tidemark.open({ database: 'memory://', logger: silentLogger });
      setSeedFolder(join(root, 'no-such-seed'));
      try {
        const made = await Tidemark.open({ database: 'memory://', logger: silentLogger });
        try {
          assert.notEqual(await systemIdentifier(made), await systemIdentifier(seeded));
          assert.deepEqual(await made.listQueues(), []);
        } finally {
          await made.close();
        }
      } finally {
        setSeedFolder(seed);
        await seeded.close();
      }
    });

    test('an open that only checks the schema does not take the seed: a new folder is created bare, as before', async () => {
      const folder = join(root, 'check-only');
      await assert.rejects(
        Tidemark.open({ database: folder, migrate: false, logger: silentLogger }),
        SchemaNotFoundError,
      );
      const tm = await Tidemark.open({ database: folder, schema: 'elsewhere', logger: silentLogger });
      try {
        const schemas = await rawQuery<{ nspname: string }>(
          tm,
          "select nspname from pg_namespace where nspname in ('tidemark', 'elsewhere') order by 1",
        );
        assert.deepEqual(
          schemas.map((s) => s.nspname),
          ['elsewhere'],
        );
      } finally {
        await tm.close();
      }
    });
  });
}
