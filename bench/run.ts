/**
 * Tidemark beside graphile-worker, pg-boss and BullMQ on the same PostgreSQL: each figure,
 * each repetition, each system in turn (interleaved), every measurement in a fresh process
 * on a fresh schema. Prints medians and the ratio Tidemark/peer.
 *
 *   npm run bench -- [--only drain,latency] [--reps 3] [--peers graphile,pg-boss] [--out file.md]
 *
 * Figures: bulk, bulk1, single, drain, drain2, drain25, drain4, latency, async, realistic,
 * payload, sweep, sweep-realistic, sweep-scale, sweep-drain, history, pglite, pglite-folder.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { REDIS_URL } from './subjects/bullmq.js';
import { allSubjects } from './subjects/index.js';
import { DEPENDENCY_JOBS } from './support/dependency-figures.js';
import {
  ASYNC_JOBS,
  BULK_BATCH,
  BULK_ONE_CALL_JOBS,
  CONCURRENCY,
  JOBS,
  LATENCY_JOBS,
  LATENCY_SPACING_MS,
  PAYLOAD_BYTES,
  PAYLOAD_JOBS,
  REALISTIC_CONCURRENCY,
  REALISTIC_HANDLER_MS,
  REALISTIC_IDEAL,
  REALISTIC_JOBS,
  SCALE_OUT_CONCURRENCY,
  SCALE_OUT_JOBS,
  SCALE_OUT_PROCESSES,
  SINGLE_JOBS,
} from './support/figures.js';
import { FIRST_OPENS } from './support/pglite-folder-figures.js';
import { BENCH_URL, settle, withClient } from './support/postgres.js';
import {
  CONCURRENT_DRAIN_JOBS,
  CONCURRENT_SWEEP_ROWS,
  HISTORY_ROWS,
  KEPT_ROWS,
  SWEEP_ROWS,
} from './support/retention-figures.js';
import { formatNumber, median } from './support/stats.js';

interface FigureSpec {
  key: string;
  title: string;
  /** The child figure to run (pglite rows reuse the pg figures). */
  child: string;
  subjects: string[];
  /** Values to report, each with whether lower is better. */
  values: { name: string; unit: string; lowerIsBetter?: boolean; digits?: number }[];
  /** The subject every other one is compared with. */
  reference: string;
  /** How long one measurement may take before it is killed (default 240 s). */
  timeoutSeconds?: number;
}

const PEERS = [
  'graphile',
  'graphile-batched-small',
  'graphile-batched',
  'pg-boss',
  'pg-boss-large-batch',
  'bullmq-redis',
  'bullmq-pg',
];
const ENQUEUERS = ['graphile', 'pg-boss', 'bullmq-redis', 'bullmq-pg'];
const jobsPerSecond = [{ name: 'jobsPerSecond', unit: 'jobs/s' }];
const latency = [
  { name: 'p50', unit: 'ms', lowerIsBetter: true },
  { name: 'p95', unit: 'ms', lowerIsBetter: true },
  { name: 'p99', unit: 'ms', lowerIsBetter: true },
];

/** What a drain costs the database per job (bench/support/drain-cost-lines.ts). */
const COST_LINES = [
  { name: 'statementsPerJob', unit: 'statements/job', lowerIsBetter: true, digits: 3 },
  { name: 'walBytesPerJob', unit: 'WAL bytes/job', lowerIsBetter: true },
  { name: 'writeTransactionsPerJob', unit: 'write transactions/job', lowerIsBetter: true, digits: 3 },
];

/** The PostgreSQL server's CPU during a multi-process drain (bench/support/server-cpu.ts). */
const POSTGRES_CPU = { name: 'postgresCpuUsPerJob', unit: 'us postgres CPU/job', lowerIsBetter: true };

const FIGURES: FigureSpec[] = [
  {
    key: 'bulk',
    title: `bulk enqueue ${formatNumber(JOBS)} (batches of ${BULK_BATCH})`,
    child: 'bulk',
    subjects: ['tidemark', ...ENQUEUERS],
    values: jobsPerSecond,
    reference: 'tidemark',
  },
  {
    key: 'bulk1',
    title: `bulk enqueue ${formatNumber(BULK_ONE_CALL_JOBS)} in one call`,
    child: 'bulk1',
    subjects: ['tidemark', ...ENQUEUERS],
    values: jobsPerSecond,
    reference: 'tidemark',
  },
  {
    key: 'single',
    title: `single enqueue ${formatNumber(SINGLE_JOBS)} (one call each, sequential)`,
    child: 'single',
    subjects: ['tidemark', ...ENQUEUERS],
    values: jobsPerSecond,
    reference: 'tidemark',
  },
  {
    key: 'drain',
    title: `drain ${formatNumber(JOBS)} no-op jobs, concurrency ${CONCURRENCY}, 1 worker process`,
    child: 'drain',
    subjects: ['tidemark', 'raw-loop', ...PEERS],
    values: [...jobsPerSecond, ...COST_LINES],
    reference: 'tidemark',
  },
  {
    key: 'drain2',
    title: `drain ${formatNumber(JOBS)} no-op jobs, 2 worker processes x concurrency ${CONCURRENCY}`,
    child: 'drain2',
    subjects: ['tidemark', ...PEERS],
    values: jobsPerSecond,
    reference: 'tidemark',
  },
  {
    key: 'drain25',
    title: `drain ${formatNumber(SCALE_OUT_JOBS)} no-op jobs, 1 worker process x concurrency ${SCALE_OUT_CONCURRENCY}`,
    child: 'drain25',
    subjects: ['tidemark', ...PEERS],
    values: [...jobsPerSecond, POSTGRES_CPU],
    reference: 'tidemark',
    timeoutSeconds: 600,
  },
  {
    key: 'drain4',
    title: `drain ${formatNumber(SCALE_OUT_JOBS)} no-op jobs, ${SCALE_OUT_PROCESSES} worker processes x concurrency ${SCALE_OUT_CONCURRENCY}`,
    child: 'drain4',
    subjects: ['tidemark', ...PEERS],
    values: [...jobsPerSecond, POSTGRES_CPU],
    reference: 'tidemark',
    // 40,000 jobs: the slowest peers take minutes on a loaded machine.
    timeoutSeconds: 600,
  },
  {
    key: 'latency',
    title: `idle pickup latency, ${LATENCY_JOBS} jobs ${LATENCY_SPACING_MS} ms apart (add call to handler start)`,
    child: 'latency',
    subjects: ['tidemark', ...PEERS],
    values: latency,
    reference: 'tidemark',
  },
  {
    key: 'async',
    title: `drain ${formatNumber(ASYNC_JOBS)} jobs with a 1 ms async handler, concurrency ${CONCURRENCY}`,
    child: 'async',
    subjects: ['tidemark', ...PEERS],
    values: jobsPerSecond,
    reference: 'tidemark',
  },
  {
    key: 'realistic',
    title: `drain ${formatNumber(REALISTIC_JOBS)} jobs whose handler awaits a ${REALISTIC_HANDLER_MS} ms timer, concurrency ${REALISTIC_CONCURRENCY} (ideal ${formatNumber(REALISTIC_IDEAL)} jobs/s)`,
    child: 'realistic',
    subjects: ['tidemark', ...PEERS],
    values: [
      ...jobsPerSecond,
      { name: 'ofIdeal', unit: 'of ideal', digits: 2 },
      { name: 'timerMs', unit: 'ms a 5 ms timer took', digits: 2, lowerIsBetter: true },
      { name: 'ofTimerBound', unit: "of the timers' bound", digits: 2 },
    ],
    reference: 'tidemark',
  },
  {
    key: 'payload',
    title: `drain ${formatNumber(PAYLOAD_JOBS)} jobs with ${formatNumber(PAYLOAD_BYTES)} bytes of JSON data, each returning ${formatNumber(PAYLOAD_BYTES)} bytes of JSON, concurrency ${CONCURRENCY}`,
    child: 'payload',
    subjects: ['tidemark', ...PEERS],
    values: jobsPerSecond,
    reference: 'tidemark',
  },
  {
    key: 'sweep',
    title: `retention: remove ${formatNumber(SWEEP_ROWS)} due finished rows`,
    child: 'sweep',
    subjects: [
      'tidemark',
      'raw-delete',
      'raw-delete-cascade',
      'pg-boss',
      'pg-boss-removal',
      'tidemark-pglite',
    ],
    values: [{ name: 'rowsPerSecond', unit: 'rows/s' }],
    reference: 'tidemark',
  },
  {
    key: 'sweep-realistic',
    title: `retention: remove ${formatNumber(SWEEP_ROWS)} due jobs, a fifth of them workflows with 3 checkpoints and 2 consumed signals, a tenth with a lapsed unique lock (rows/s counts every row removed)`,
    child: 'sweep-realistic',
    subjects: ['tidemark', 'raw-delete-dependents'],
    values: [{ name: 'rowsPerSecond', unit: 'rows/s' }],
    reference: 'tidemark',
  },
  {
    key: 'sweep-scale',
    title: `retention: the same ${formatNumber(SWEEP_ROWS)}-row sweep beside ${formatNumber(KEPT_ROWS)} kept finished rows (ratio: beside kept rows / alone, same process)`,
    child: 'sweep-scale',
    subjects: ['tidemark'],
    values: [
      { name: 'rowsPerSecond', unit: 'rows/s' },
      { name: 'alone', unit: 'rows/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'sweep-drain',
    title: `drain ${formatNumber(CONCURRENT_DRAIN_JOBS)} no-op jobs while a sweep removes ${formatNumber(CONCURRENT_SWEEP_ROWS)} due rows (ratio: with the sweep / without, same process)`,
    child: 'sweep-drain',
    subjects: ['tidemark'],
    values: [
      { name: 'jobsPerSecond', unit: 'jobs/s' },
      { name: 'quiet', unit: 'jobs/s' },
      { name: 'claimLockWaits', unit: 'samples' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'history',
    title: `drain ${formatNumber(JOBS)} no-op jobs beside ${formatNumber(HISTORY_ROWS)} kept finished rows (ratio: with history / empty table, same process)`,
    child: 'history',
    subjects: ['tidemark'],
    values: [
      { name: 'jobsPerSecond', unit: 'jobs/s' },
      { name: 'empty', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'keys-mixed',
    title: `flow control: drain ${formatNumber(JOBS)} jobs without a key on a queue that also holds 2,000 keyed jobs (of a paused key), concurrency ${CONCURRENCY} (ratio: with keyed jobs / plain drain, same process)`,
    child: 'keys-mixed',
    subjects: ['tidemark'],
    values: [
      { name: 'mixed', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'keys-1000',
    title: `flow control: drain ${formatNumber(JOBS)} jobs over 1,000 keys at concurrency 1 each, worker concurrency ${CONCURRENCY} (ratio: keyed / plain drain, same process)`,
    child: 'keys-1000',
    subjects: ['tidemark'],
    values: [
      { name: 'keyed', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
      { name: 'rawKeyed', unit: 'jobs/s' },
      { name: 'rawPlain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'keys-hot',
    title: `flow control: drain ${formatNumber(JOBS)} jobs over 10 hot keys at concurrency 10 each, worker concurrency ${CONCURRENCY} (ratio: keyed / plain drain, same process)`,
    child: 'keys-hot',
    subjects: ['tidemark'],
    values: [
      { name: 'keyed', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
      { name: 'rawKeyed', unit: 'jobs/s' },
      { name: 'rawPlain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'fairness',
    title: `flow control: one job of a new key behind another key's 10,000-job backlog, from add to start (ratio: round-robin keys / plain queue; pg-boss 10 has no group limits, so its queues serve the backlog first like the plain queue)`,
    child: 'fairness',
    subjects: ['tidemark'],
    values: [
      { name: 'fair', unit: 'ms', lowerIsBetter: true },
      { name: 'plain', unit: 'ms', lowerIsBetter: true },
    ],
    reference: 'tidemark',
  },
  {
    key: 'limiter',
    title: `rate limits: drain ${formatNumber(JOBS)} jobs on a queue whose limiter is never exhausted, concurrency ${CONCURRENCY} (ratio: limited / plain drain, same process)`,
    child: 'limiter',
    subjects: ['tidemark'],
    values: [
      { name: 'limited', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'dependencies',
    title: `job dependencies: drain ${formatNumber(DEPENDENCY_JOBS)} no-op jobs that two dependents wait on (1,000 each), concurrency ${CONCURRENCY}; statements the worker sent per job, and release trigger runs per finishing dependency (ratio: with dependents / plain drain, same process)`,
    child: 'dependencies',
    subjects: ['tidemark'],
    values: [
      { name: 'dependents', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
      { name: 'statementsPerJob', unit: 'statements/job', lowerIsBetter: true, digits: 3 },
      { name: 'plainStatementsPerJob', unit: 'statements/job', lowerIsBetter: true, digits: 3 },
      { name: 'releasesPerDependency', unit: 'releases/dependency', lowerIsBetter: true, digits: 3 },
    ],
    reference: 'tidemark',
  },
  {
    key: 'batch',
    title: `batch handlers: drain ${formatNumber(JOBS)} no-op jobs through a handler that takes 100 at a time, concurrency ${CONCURRENCY} (ratio: batched / single jobs, same process)`,
    child: 'batch',
    subjects: ['tidemark'],
    values: [
      { name: 'batched', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'progress',
    title: `progress: drain ${formatNumber(JOBS)} jobs whose handler calls ctx.progress once, concurrency ${CONCURRENCY} (ratio: with progress / plain drain, same process)`,
    child: 'notes',
    subjects: ['tidemark'],
    values: [
      { name: 'progress', unit: 'jobs/s' },
      { name: 'logged', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'tracing',
    title: `tracing: drain ${formatNumber(JOBS)} no-op jobs with every attempt in a span (batched to an exporter that drops them), concurrency ${CONCURRENCY} (ratio: traced / plain drain, same process)`,
    child: 'tracing',
    subjects: ['tidemark'],
    values: [
      { name: 'traced', unit: 'jobs/s' },
      { name: 'plain', unit: 'jobs/s' },
    ],
    reference: 'tidemark',
  },
  {
    key: 'pglite',
    title: 'Tidemark on PGlite (memory://), same work',
    child: '',
    subjects: ['tidemark-pglite'],
    values: [],
    reference: 'tidemark-pglite',
  },
  {
    key: 'pglite-folder',
    title: `Tidemark on PGlite in a folder: first open of a new folder, and an open of memory:// (medians of ${FIRST_OPENS}, each in a fresh process), then drain ${formatNumber(JOBS)} no-op jobs on the folder, concurrency ${CONCURRENCY}, and the bare SQL loop's drain of as many on another new folder`,
    child: 'pglite-folder',
    subjects: ['tidemark-pglite'],
    values: [
      { name: 'firstOpenMs', unit: 'ms', lowerIsBetter: true },
      { name: 'memoryOpenMs', unit: 'ms', lowerIsBetter: true },
      { name: 'jobsPerSecond', unit: 'jobs/s' },
      { name: 'rawLoopJobsPerSecond', unit: 'jobs/s (bare SQL loop on a folder)' },
      { name: 'ofRawLoop', unit: 'of the bare loop', digits: 2 },
    ],
    reference: 'tidemark-pglite',
  },
];
const PGLITE_CHILDREN = ['bulk', 'single', 'drain', 'latency', 'async'];

/**
 * The bare SQL loop beside a keyed drain (raw-keyed-loop.ts): its strict keyed drain against
 * its plain one (the bound the database and the strict limit set), and Tidemark's keyed drain
 * as a fraction of the bare keyed one.
 */
function keyedReferenceRows(figure: FigureSpec, samples: Samples): string[] {
  const keyed = medianOf(samples, 'tidemark', 'keyed');
  const rawKeyed = medianOf(samples, 'tidemark', 'rawKeyed');
  const rawPlain = medianOf(samples, 'tidemark', 'rawPlain');
  return [
    `| ${figure.title}: the bare SQL loop, strict keyed / plain | physical reference, plain | ${formatNumber(rawPlain)} jobs/s | ${formatNumber(rawKeyed)} jobs/s | ${(rawKeyed / rawPlain).toFixed(2)} |`,
    `| ${figure.title}: Tidemark keyed / the bare loop keyed | physical reference, keyed | ${formatNumber(rawKeyed)} jobs/s | ${formatNumber(keyed)} jobs/s | ${(keyed / rawKeyed).toFixed(2)} |`,
  ];
}

/** The lock waits a sweep caused its drain, one count per run. */
function sweepWaitRows(figure: FigureSpec, samples: Samples): string[] {
  const waits = (samples.get('tidemark') ?? []).map((r) => r.claimLockWaits);
  return [
    `| ${figure.title}: worker statements seen waiting on a lock a sweep statement holds (sampled every 20 ms; each run) | Tidemark | | ${waits.join(', ')} | |`,
  ];
}

/**
 * Figures measured as a pair in one process: the value, beside its own baseline, and the rows
 * a figure adds below its own (`more`).
 */
const PAIRED: Record<
  string,
  {
    value: string;
    base: string;
    label: string;
    unit: string;
    more?: (figure: FigureSpec, samples: Samples) => string[];
  }
> = {
  history: { value: 'jobsPerSecond', base: 'empty', label: 'empty table', unit: 'jobs/s' },
  'sweep-scale': { value: 'rowsPerSecond', base: 'alone', label: 'the due rows alone', unit: 'rows/s' },
  'sweep-drain': {
    value: 'jobsPerSecond',
    base: 'quiet',
    label: 'no sweep',
    unit: 'jobs/s',
    more: sweepWaitRows,
  },
  'keys-mixed': { value: 'mixed', base: 'plain', label: 'plain drain', unit: 'jobs/s' },
  'keys-1000': {
    value: 'keyed',
    base: 'plain',
    label: 'plain drain',
    unit: 'jobs/s',
    more: keyedReferenceRows,
  },
  'keys-hot': {
    value: 'keyed',
    base: 'plain',
    label: 'plain drain',
    unit: 'jobs/s',
    more: keyedReferenceRows,
  },
  fairness: { value: 'fair', base: 'plain', label: 'plain queue', unit: 'ms' },
  limiter: { value: 'limited', base: 'plain', label: 'plain drain', unit: 'jobs/s' },
  dependencies: { value: 'dependents', base: 'plain', label: 'plain drain', unit: 'jobs/s' },
  batch: { value: 'batched', base: 'plain', label: 'single jobs', unit: 'jobs/s' },
  progress: { value: 'progress', base: 'plain', label: 'plain drain', unit: 'jobs/s' },
  tracing: { value: 'traced', base: 'plain', label: 'plain drain', unit: 'jobs/s' },
};

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    reps: { type: 'string', default: '3' },
    peers: { type: 'string' },
    out: { type: 'string' },
  },
});
const reps = Number(flags.reps);
const only = flags.only ? new Set(flags.only.split(',')) : null;
const peerFilter = flags.peers ? new Set(flags.peers.split(',')) : null;
const selected = FIGURES.filter((f) => !only || only.has(f.key));

const notes: string[] = [];
const redisUp = await new Promise<boolean>((resolve) => {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.connect().then(
    () =>
      probe
        .ping()
        .then(
          () => resolve(true),
          () => resolve(false),
        )
        .finally(() => probe.disconnect()),
    () => resolve(false),
  );
});
if (!redisUp) notes.push(`BullMQ on Redis skipped: no Redis answers at ${REDIS_URL}.`);
const pgVersion = await withClient(
  async (c) => (await c.query('show server_version')).rows[0].server_version as string,
);

function included(subject: string): boolean {
  if (subject === 'bullmq-redis' && !redisUp) return false;
  if (PEERS.includes(subject) && peerFilter && !peerFilter.has(subject)) return false;
  return true;
}

const childEntry = fileURLToPath(new URL('./support/child.ts', import.meta.url));

/** Run one measurement in a fresh process; null when it failed (the error is printed). */
function runChild(
  figure: string,
  subject: string,
  timeoutSeconds = 240,
): Promise<Record<string, number> | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childEntry, figure, subject], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('@@result '));
      if (code === 0 && line) return resolve(JSON.parse(line.slice('@@result '.length)));
      process.stderr.write(
        `  ${figure} ${subject} failed (exit ${code}): ${err.trim().split('\n').slice(0, 3).join(' | ')}\n`,
      );
      resolve(null);
    });
  });
}

type Samples = Map<string, Record<string, number>[]>;
const results = new Map<string, Samples>();
const started = performance.now();

for (const figure of selected) {
  const runs =
    figure.key === 'pglite'
      ? PGLITE_CHILDREN.map((c) => ({ key: `pglite:${c}`, child: c }))
      : [{ key: figure.key, child: figure.child }];
  for (const run of runs) {
    const samples: Samples = new Map();
    results.set(run.key, samples);
    for (let rep = 1; rep <= reps; rep++) {
      for (const subject of figure.subjects.filter(included)) {
        await settle();
        const result = await runChild(run.child, subject, figure.timeoutSeconds);
        if (!result) continue;
        samples.set(subject, [...(samples.get(subject) ?? []), result]);
        const shown = Object.entries(result)
          .map(([k, v]) => `${k} ${formatNumber(v, v < 1 ? 3 : v < 100 ? 1 : 0)}`)
          .join(', ');
        console.error(
          `[${((performance.now() - started) / 1000).toFixed(0)} s] ${run.key} rep ${rep} ${subject}: ${shown}`,
        );
      }
    }
  }
}

const labels = new Map(allSubjects().map((s) => [s.key, s.label]));
labels.set(
  'raw-delete',
  'raw batched DELETE of the jobs, 1000 per statement (Tidemark table, which no table references)',
);
labels.set(
  'raw-delete-cascade',
  'the same raw DELETE with the five ON DELETE CASCADE foreign keys of the earlier design put back',
);
labels.set(
  'raw-delete-dependents',
  'raw batched DELETE of the jobs and, in the same statement, their dependent rows (set-based)',
);
labels.set('tidemark-pglite', 'Tidemark on embedded PGlite (memory://), the same sweep');
labels.set('pg-boss:sweep', 'pg-boss 10 maintain() (archives completed jobs out of its job table)');
labels.set(
  'pg-boss-removal',
  'pg-boss 10 removal from the database (maintain() archives, a later maintain() deletes the archived rows; both timed)',
);
const medianOf = (samples: Samples, subject: string, value: string) =>
  median((samples.get(subject) ?? []).map((r) => r[value]).filter((v) => Number.isFinite(v)));

/** Each system's scale-out: its drain4 rate over its drain25 rate (medians), when both ran. */
function scaleOutRows(four: Samples): string[] {
  const one = results.get('drain25');
  if (!one) return [];
  const scale = (subject: string) =>
    medianOf(four, subject, 'jobsPerSecond') / medianOf(one, subject, 'jobsPerSecond');
  const title = `scale-out: ${SCALE_OUT_PROCESSES} worker processes / 1 (drain4 / drain25 jobs/s)`;
  const mine = scale('tidemark');
  const rows: string[] = [];
  for (const subject of FIGURES.find((f) => f.key === 'drain4')?.subjects.filter(included) ?? []) {
    if (subject === 'tidemark') continue;
    const theirs = scale(subject);
    rows.push(
      `| ${title} | ${labels.get(subject) ?? subject} | ${theirs.toFixed(2)} | ${mine.toFixed(2)} | ${(mine / theirs).toFixed(2)} |`,
    );
  }
  if (rows.length === 0) rows.push(`| ${title} | Tidemark | | ${mine.toFixed(2)} | |`);
  return rows;
}

const lines: string[] = [];
lines.push(
  `Tidemark benchmark: median of ${reps} runs, interleaved; PostgreSQL ${pgVersion} at ${new URL(BENCH_URL).host}; Node ${process.version}; ${cpus().length} cores`,
);
lines.push(
  'Ratio = Tidemark / peer (for jobs/s and rows/s higher is better for Tidemark; for latency lower is better).',
);
lines.push('');
lines.push('| figure | system | median | Tidemark | ratio |');
lines.push('|---|---|---:|---:|---:|');
for (const figure of selected) {
  if (figure.key === 'pglite') {
    for (const child of PGLITE_CHILDREN) {
      const samples = results.get(`pglite:${child}`);
      const spec = FIGURES.find((f) => f.key === child) as FigureSpec;
      if (!samples) continue;
      for (const value of spec.values) {
        const v = medianOf(samples, 'tidemark-pglite', value.name);
        lines.push(
          `| PGlite: ${spec.title}${spec.values.length > 1 ? ` ${value.name}` : ''} | Tidemark (PGlite) | ${formatNumber(v, value.unit === 'ms' ? 1 : 0)} ${value.unit} | | |`,
        );
      }
    }
    continue;
  }
  const samples = results.get(figure.key) as Samples;
  const paired = PAIRED[figure.key];
  if (paired) {
    const mine = medianOf(samples, 'tidemark', paired.value);
    const base = medianOf(samples, 'tidemark', paired.base);
    lines.push(
      `| ${figure.title} | Tidemark, ${paired.label} | ${formatNumber(base)} ${paired.unit} | ${formatNumber(mine)} ${paired.unit} | ${(mine / base).toFixed(2)} |`,
    );
    if (paired.more) lines.push(...paired.more(figure, samples));
    continue;
  }
  for (const value of figure.values) {
    const mine = medianOf(samples, figure.reference, value.name);
    const name = figure.values.length > 1 ? `${figure.title} ${value.name}` : figure.title;
    const digits = value.digits ?? (value.unit === 'ms' ? 1 : 0);
    for (const subject of figure.subjects.filter(included)) {
      if (subject === figure.reference) continue;
      // A value this system does not have (the PostgreSQL CPU of BullMQ on Redis).
      const runs = samples.get(subject) ?? [];
      if (runs.length > 0 && runs.every((r) => !(value.name in r))) continue;
      const theirs = medianOf(samples, subject, value.name);
      const label =
        labels.get(figure.key === 'sweep' && subject === 'pg-boss' ? 'pg-boss:sweep' : subject) ?? subject;
      if (subject === 'tidemark-pglite') {
        // Another engine, not a peer: its own figure, no ratio.
        lines.push(`| ${name} | ${label} | | ${formatNumber(theirs, digits)} ${value.unit} | |`);
        continue;
      }
      lines.push(
        `| ${name} | ${label} | ${formatNumber(theirs, digits)} ${value.unit} | ${formatNumber(mine, digits)} ${value.unit} | ${(mine / theirs).toFixed(2)} |`,
      );
    }
    if (figure.subjects.filter(included).length === 1) {
      lines.push(`| ${name} | Tidemark | | ${formatNumber(mine, digits)} ${value.unit} | |`);
    }
  }
  if (figure.key === 'drain4') lines.push(...scaleOutRows(samples));
}
lines.push('');
lines.push('Settings:');
for (const subject of allSubjects().filter((s) => included(s.key)))
  lines.push(`- ${subject.label}: ${subject.settings}`);
lines.push(
  `- raw batched DELETE: \`delete ... using (select id ... where purge_after <= now() order by purge_after limit ${1000})\` until a short batch, on a Tidemark jobs table (same indexes; no table references it)`,
);
lines.push(
  '- pg-boss maintain(): 200,000 completed jobs, completed 2 days ago (past archiveCompletedAfterSeconds 12 h)',
  '- pg-boss removal: the same maintain(), then the archive aged past deleteAfterSeconds (7 days; untimed, vacuumed and checkpointed) and a second maintain() that deletes it',
);
lines.push('- every run: its own process, a fresh schema (Redis: a fresh key prefix), CHECKPOINT before it');
for (const note of notes) lines.push(`- ${note}`);
lines.push(`- total time ${((performance.now() - started) / 1000).toFixed(0)} s`);
const text = lines.join('\n');
console.log(text);
if (flags.out) writeFileSync(flags.out, `${text}\n`);
