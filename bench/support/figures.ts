import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startCostCount } from './drain-cost-lines.js';
import { percentile, rate, until } from './stats.js';
import { type JobHandler, noop, type Subject } from './subject.js';

/** What one measurement returns: named numbers (jobs/s, ms). */
export type Figures = Record<string, number>;

export const JOBS = 20_000;
export const BULK_BATCH = 1_000;
export const SINGLE_JOBS = 2_000;
export const ASYNC_JOBS = 10_000;
export const LATENCY_JOBS = 200;
export const LATENCY_SPACING_MS = 20;
export const CONCURRENCY = 10;

export async function bulkEnqueue(subject: Subject): Promise<Figures> {
  const session = await subject.open();
  try {
    const started = performance.now();
    await session.bulkAdd(0, JOBS, BULK_BATCH);
    return { jobsPerSecond: rate(JOBS, performance.now() - started) };
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
 * until the worker has stopped.
 */
export async function drain(
  subject: Subject,
  count = JOBS,
  handler: JobHandler = noop,
  prepare?: (descriptor: string) => Promise<void>,
): Promise<Figures> {
  const session = await subject.open();
  try {
    if (prepare) await prepare(session.descriptor);
    await session.bulkAdd(0, count, BULK_BATCH);
    let done = 0;
    const endCostCount = await startCostCount();
    const started = performance.now();
    await session.startWorker(CONCURRENCY, (n) => {
      const value = handler(n);
      if (value instanceof Promise) return value.then(() => void done++);
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

/** Add the jobs, then time two worker processes (each at concurrency 10) draining them. */
export async function drainTwoProcesses(subject: Subject): Promise<Figures> {
  const session = await subject.open();
  try {
    await session.bulkAdd(0, JOBS, BULK_BATCH);
    const entry = fileURLToPath(new URL('./child.ts', import.meta.url));
    const children = [0, 1].map(() =>
      fork(entry, ['worker', subject.key, session.descriptor], { execArgv: ['--import', 'tsx'] }),
    );
    let ready = 0;
    let done = 0;
    for (const child of children) {
      child.on('message', (message: { ready?: true; done?: number }) => {
        if (message.ready) ready++;
        if (message.done) done += message.done;
      });
    }
    await until(() => ready === children.length, 5);
    const started = performance.now();
    for (const child of children) child.send('go');
    await until(() => done >= JOBS);
    const elapsed = performance.now() - started;
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.send('stop');
          }),
      ),
    );
    return { jobsPerSecond: rate(JOBS, elapsed) };
  } finally {
    await session.close();
  }
}

/** Runs in a worker process of `drainTwoProcesses`: works the jobs, reports counts. */
export async function workForParent(subject: Subject, descriptor: string): Promise<void> {
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
  process.on('message', async (message) => {
    if (message === 'go') {
      await session.startWorker(CONCURRENCY, () => {
        done++;
      });
    } else if (message === 'stop') {
      clearInterval(report);
      await session.stopWorker();
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
