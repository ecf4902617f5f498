import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startCostCount } from './drain-cost-lines.js';
import { startPostgresCpu } from './server-cpu.js';
import { percentile, rate, until } from './stats.js';
import { type JobHandler, jsonOfSize, noop, type Subject } from './subject.js';

/** What one measurement returns: named numbers (jobs/s, ms). */
export type Figures = Record<string, number>;

export const JOBS = 20_000;
export const BULK_BATCH = 1_000;
export const SINGLE_JOBS = 2_000;
export const ASYNC_JOBS = 10_000;
export const LATENCY_JOBS = 200;
export const LATENCY_SPACING_MS = 20;
export const CONCURRENCY = 10;

/**
 * Divides the job counts of the scale-out, realistic, payload and one-call bulk figures, for
 * a quick smoke test (`TIDEMARK_BENCH_SHRINK=10`); 1 (the stated counts) unless set.
 */
const SHRINK = Math.max(1, Number(process.env.TIDEMARK_BENCH_SHRINK ?? 1) || 1);
const shrunk = (count: number) => Math.round(count / SHRINK);

/** Scale-out: this many worker processes at this concurrency each drain these jobs. */
export const SCALE_OUT_PROCESSES = 4;
export const SCALE_OUT_CONCURRENCY = 25;
export const SCALE_OUT_JOBS = shrunk(40_000);
/** The realistic drain: handlers that await a timer, at high concurrency. */
export const REALISTIC_JOBS = shrunk(10_000);
export const REALISTIC_CONCURRENCY = 100;
export const REALISTIC_HANDLER_MS = 5;
/** What the realistic drain would reach were the system free: every slot always busy. */
export const REALISTIC_IDEAL = REALISTIC_CONCURRENCY / (REALISTIC_HANDLER_MS / 1000);
/** The payload drain: JSON data in, JSON output back, of this size each. */
export const PAYLOAD_JOBS = shrunk(20_000);
export const PAYLOAD_BYTES = 2_048;
/** Bulk enqueue in one call: every job in a single add call. */
export const BULK_ONE_CALL_JOBS = shrunk(JOBS);

export async function bulkEnqueue(subject: Subject, count = JOBS, batch = BULK_BATCH): Promise<Figures> {
  const session = await subject.open();
  try {
    const started = performance.now();
    await session.bulkAdd(0, count, batch);
    return { jobsPerSecond: rate(count, performance.now() - started) };
  } finally {
    await session.close();
  }
}

export async function singleEnqueue(subject: Subject): Promise<Figures> {
  const session = await subject.open();
  try {
    const started = performance.now();
    for (let n = 0; n < SINGLE_JOBS; n++) await session.addOne(n);
    return { jobsPerSecond: rate(SINGLE_JOBS, performance.now() - started) };
  } finally {
    await session.close();
  }
}

/**
 * Add `count` jobs, then time one worker from start to the last job handled. Also returns
 * what the drain cost the database per job (see startCostCount), counted outside the timing
 * until the worker has stopped. The handler's value (or what its promise resolves to) is the
 * job's output. `concurrency` defaults to CONCURRENCY; `payloadBytes` gives each job's data
 * that much JSON text (see jsonOfSize).
 */
export async function drain(
  subject: Subject,
  count = JOBS,
  handler: JobHandler = noop,
  prepare?: (descriptor: string) => Promise<void>,
  { concurrency = CONCURRENCY, payloadBytes = 0 }: { concurrency?: number; payloadBytes?: number } = {},
): Promise<Figures> {
  const session = await subject.open();
  try {
    if (prepare) await prepare(session.descriptor);
    await session.bulkAdd(0, count, BULK_BATCH, payloadBytes);
    let done = 0;
    const endCostCount = await startCostCount();
    const started = performance.now();
    await session.startWorker(concurrency, (n) => {
      const value = handler(n);
      if (value instanceof Promise)
        return value.then((output) => {
          done++;
          return output;
        });
      done++;
      return value;
    });
    await until(() => done >= count);
    const elapsed = performance.now() - started;
    await session.stopWorker();
    return { jobsPerSecond: rate(count, elapsed), ...(await endCostCount(count)) };
  } finally {
    await session.close();
  }
}

export const asyncHandler: JobHandler = () => sleep(1);

/** How long the realistic handler's timers took to fire, over one drain. */
const timerWaits = { totalMs: 0, count: 0 };

/**
 * The realistic handler: awaits a REALISTIC_HANDLER_MS timer, and counts how long it took to
 * fire. A timer fires late by however long the process's other work holds the event loop.
 */
export const realisticHandler: JobHandler = () => {
  const started = performance.now();
  return sleep(REALISTIC_HANDLER_MS).then(() => {
    timerWaits.totalMs += performance.now() - started;
    timerWaits.count++;
  });
};

/** The payload handler: returns PAYLOAD_BYTES of JSON, the job's output where it is kept. */
export const payloadHandler: JobHandler = (n) => jsonOfSize(n, PAYLOAD_BYTES);

/**
 * Add `count` jobs, then time `processes` worker processes (each at `concurrency`) draining
 * them, from the start signal to the last handler call. Also returns the CPU the PostgreSQL
 * server's processes used per job (startPostgresCpu; not for a system that keeps its jobs
 * elsewhere), from the start signal until every worker has stopped (its last outcomes
 * written), read before the workers close their connections; read every 100 ms meanwhile,
 * and at the last handler call, for the connections a worker closes as it stops
 * (graphile-worker's pool, for one), whose server processes take their count with them.
 */
export async function drainProcesses(
  subject: Subject,
  processes = 2,
  concurrency = CONCURRENCY,
  count = JOBS,
): Promise<Figures> {
  const session = await subject.open();
  try {
    await session.bulkAdd(0, count, BULK_BATCH);
    const entry = fileURLToPath(new URL('./child.ts', import.meta.url));
    const children = Array.from({ length: processes }, () =>
      fork(entry, ['worker', subject.key, session.descriptor, String(concurrency)], {
        execArgv: ['--import', 'tsx'],
      }),
    );
    let ready = 0;
    let done = 0;
    let stopped = 0;
    for (const child of children) {
      child.on('message', (message: { ready?: true; done?: number; stopped?: true }) => {
        if (message.ready) ready++;
        if (message.done) done += message.done;
        if (message.stopped) stopped++;
      });
    }
    await until(() => ready === children.length, 5);
    const postgresCpu = startPostgresCpu(100);
    const started = performance.now();
    for (const child of children) child.send('go');
    await until(() => done >= count);
    const elapsed = performance.now() - started;
    postgresCpu.sample();
    for (const child of children) child.send('stop');
    await until(() => stopped === children.length, 5);
    const postgresMs = postgresCpu.stop();
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.send('close');
          }),
      ),
    );
    return {
      jobsPerSecond: rate(count, elapsed),
      ...(Number.isFinite(postgresMs) && subject.server !== 'redis'
        ? { postgresCpuUsPerJob: (postgresMs * 1000) / count }
        : {}),
    };
  } finally {
    await session.close();
  }
}

/** Runs in a worker process of `drainProcesses`: works the jobs, reports counts. */
export async function workForParent(
  subject: Subject,
  descriptor: string,
  concurrency = CONCURRENCY,
): Promise<void> {
  const session = await subject.attach(descriptor);
  let done = 0;
  let reported = 0;
  const send = process.send?.bind(process) as (message: unknown) => void;
  const report = setInterval(() => {
    if (done > reported) {
      send({ done: done - reported });
      reported = done;
    }
  }, 5);
  // A parent that is gone (killed at its time limit) leaves no worker draining behind it.
  process.on('disconnect', () => process.exit(1));
  process.on('message', async (message) => {
    if (message === 'go') {
      await session.startWorker(concurrency, () => {
        done++;
      });
    } else if (message === 'stop') {
      clearInterval(report);
      await session.stopWorker();
      send({ stopped: true });
    } else if (message === 'close') {
      await session.close();
      process.exit(0);
    }
  });
  send({ ready: true });
}

/** An idle worker; jobs added one at a time, 20 ms apart; time from add to handler start. */
export async function pickupLatency(subject: Subject): Promise<Figures> {
  const session = await subject.open();
  try {
    const addedAt: number[] = new Array(LATENCY_JOBS);
    const latency: number[] = [];
    await session.startWorker(CONCURRENCY, (n) => {
      latency.push(performance.now() - addedAt[n]);
    });
    await sleep(500);
    const start = performance.now();
    for (let n = 0; n < LATENCY_JOBS; n++) {
      const due = start + n * LATENCY_SPACING_MS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      addedAt[n] = performance.now();
      await session.addOne(n);
    }
    await until(() => latency.length >= LATENCY_JOBS);
    await session.stopWorker();
    return {
      p50: percentile(latency, 50),
      p95: percentile(latency, 95),
      p99: percentile(latency, 99),
    };
  } finally {
    await session.close();
  }
}

/** Scale-out: SCALE_OUT_JOBS no-op jobs, `processes` worker processes at SCALE_OUT_CONCURRENCY. */
export function scaleOutDrain(subject: Subject, processes: number): Promise<Figures> {
  return drainProcesses(subject, processes, SCALE_OUT_CONCURRENCY, SCALE_OUT_JOBS);
}

/**
 * REALISTIC_JOBS 5-ms timer jobs at concurrency 100; also the fraction of REALISTIC_IDEAL, how
 * long the handlers' timers took on average, and the fraction of what slots held that long
 * could reach (concurrency / that time): the bound the process's own event loop sets.
 */
export async function realisticDrain(subject: Subject): Promise<Figures> {
  timerWaits.totalMs = 0;
  timerWaits.count = 0;
  const figures = await drain(subject, REALISTIC_JOBS, realisticHandler, undefined, {
    concurrency: REALISTIC_CONCURRENCY,
  });
  const timerMs = timerWaits.totalMs / timerWaits.count;
  return {
    ...figures,
    ofIdeal: figures.jobsPerSecond / REALISTIC_IDEAL,
    timerMs,
    ofTimerBound: figures.jobsPerSecond / (REALISTIC_CONCURRENCY / (timerMs / 1000)),
  };
}

/** PAYLOAD_JOBS jobs with PAYLOAD_BYTES of JSON data, each returning as much JSON. */
export function payloadDrain(subject: Subject): Promise<Figures> {
  return drain(subject, PAYLOAD_JOBS, payloadHandler, undefined, { payloadBytes: PAYLOAD_BYTES });
}
