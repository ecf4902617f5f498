#!/usr/bin/env node
// Runs the test suite with node's test runner on the drivers named in TIDEMARK_TEST_DRIVERS
// (default "pglite,pg"). Usage: node scripts/run-tests.mjs [files or folders...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const roots = args.length > 0 ? args : ['test'];
const files = roots.flatMap((root) => collect(root)).sort();
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}

const drivers = process.env.TIDEMARK_TEST_DRIVERS ?? 'pglite,pg';
if (drivers.split(',').includes('pg')) {
  const url = process.env.TIDEMARK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    console.error(`PostgreSQL is unreachable at ${url}: ${error.message}`);
    console.error('Start it, or run only the embedded driver with TIDEMARK_TEST_DRIVERS=pglite.');
    process.exit(1);
  }
  // Schemas left by earlier runs, named tt_<epoch seconds base 36>_<random>. Only those older
  // than two hours go, so a run still in progress beside this one keeps its schemas.
  const { rows } = await client.query("select nspname from pg_namespace where nspname like 'tt\\_%'");
  const cutoff = Date.now() / 1000 - 7200;
  for (const { nspname } of rows) {
    const stamp = /^tt_([0-9a-z]+)_/.exec(nspname);
    const created = stamp ? Number.parseInt(stamp[1], 36) : 0;
    if (created < cutoff) await client.query(`drop schema if exists "${nspname}" cascade`);
  }
  await client.end();
}

const concurrency = process.env.TIDEMARK_TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit', env: { ...process.env, TIDEMARK_TEST_DRIVERS: drivers } },
);
process.exit(result.status ?? 1);

function collect(path) {
  const stat = statSync(path);
  if (stat.isFile()) return [path];
  return readdirSync(path).flatMap((entry) => {
    const full = join(path, entry);
    if (statSync(full).isDirectory()) return entry === 'support' || entry === 'fixtures' ? [] : collect(full);
    return entry.endsWith('.test.ts') ? [full] : [];
  });
}
