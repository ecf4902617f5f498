import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import type { Tidemark } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';
import { within } from '../support/wait-for.js';

const BACKLOG = 10_000;

/** More of the busy key's jobs than this starting ahead of the small one: it waited behind the backlog. */
const BEHIND = 5_000;

/** The starts whose keys the weights test counts. */
const WINDOW = 800;

/**
 * Add BACKLOG jobs of one tenant, let a worker start on them, add one job of another tenant,
 * and count the first tenant's jobs that start after that one was added and before it starts.
 * The worker stops once the count is known or, when `enough` is given, has passed it: the
 * caller asks only whether it does, and the rest of the backlog would change no answer.
 * The handlers say when each point is reached: a poll on a timer could wait, while the worker
 * keeps the thread busy (PGlite runs in it), until the whole backlog had run.
 */
async function delayOfOneJob(
  tm: Tidemark,
  queue: string,
  enough = Number.POSITIVE_INFINITY,
): Promise<{ jobs: number; ms: number | null }> {
  const started: string[] = [];
  const backlogStarted = deferred();
  const answered = deferred();
  let before = -1;
  let startedAt = -1;
  tm.createQueue({
    name: queue,
    handler: (job) => {
      started.push(job.key ?? '');
      if (started.length === 200) backlogStarted.resolve();
      if (job.key === 'small') {
        startedAt = performance.now();
        answered.resolve();
      } else if (before >= 0 && started.length - before > enough) answered.resolve();
    },
    // No limit that would hold the busy key back by itself: only the fair order does.
    ...(queue === 'fair' ? { keys: { concurrency: BACKLOG, fairness: 'round-robin' as const } } : {}),
  });
  for (let i = 0; i < BACKLOG; i += 5_000) {
    await tm.addJobs(Array.from({ length: 5_000 }, () => ({ queue, key: 'big' })));
  }
  const worker = fastWorker(tm, { concurrency: 10 });
  await worker.start();
  await within(backlogStarted.promise, 15_000, 'the backlog to start');
  before = started.length;
  const addedAt = performance.now();
  await tm.addJob({ queue, key: 'small' });
  await within(answered.promise, 120_000, 'the small tenant to start');
  await worker.stop();
  const small = started.indexOf('small');
  return small < 0
    ? { jobs: started.length - before, ms: null }
    : { jobs: small - before, ms: startedAt - addedAt };
}

describeEachDriver('flow control: fairness across keys', ({ kind, open }) => {
  test(`round-robin: a tenant with ${BACKLOG.toLocaleString('en')} jobs delays another's one job by about one claim round`, async () => {
    const fair = await delayOfOneJob(await open(), 'fair');
    const plain = await delayOfOneJob(await open(), 'plain', BEHIND);
    console.log(
      `fairness [${kind}]: behind a ${BACKLOG}-job backlog, one job of another key started after ` +
        `${fair.jobs} of its jobs (${fair.ms?.toFixed(0)} ms) with round-robin keys; on a plain queue ` +
        (plain.ms === null
          ? `not yet after ${plain.jobs}`
          : `after ${plain.jobs} (${plain.ms.toFixed(0)} ms)`),
    );
    // About one claim round: the jobs the worker had claimed already (its prefetch, at most
    // 1,000 beyond the 10 running), and a claim in flight as the job was added, start first;
    // the claim after that takes the small tenant's job first (checked exactly below).
    assert.ok(fair.jobs <= 2 * 1_010, `${fair.jobs} jobs of the busy key started first`);
    assert.ok(plain.jobs > BEHIND, `on a plain queue the job waits behind the backlog (${plain.jobs})`);
  });

  test("round-robin: the next claim serves a new key first, whatever the busy key's backlog", async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', keys: { concurrency: BACKLOG, fairness: 'round-robin' } });
    await tm.addJobs(Array.from({ length: 5_000 }, () => ({ queue: 'q', key: 'big', priority: 1 })));
    const { storage } = engineOf(tm);
    assert.equal((await storage.attempts.claimJobs(['q'], 10, 'w', 30)).length, 10);
    const small = await tm.addJob({ queue: 'q', key: 'small' });
    const next = await storage.attempts.claimJobs(['q'], 10, 'w', 30);
    // Ahead of the busy key's jobs, despite their higher priority and older run time.
    assert.equal(next[0].job.id, small.id);
    assert.equal(next.length, 10);
  });

  test('weights: busy keys are served in proportion to their weights', async () => {
    const tm = await open();
    const started: string[] = [];
    const windowStarted = deferred();
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 1_000, fairness: { weights: { gold: 3 } } },
      handler: (job) => {
        started.push(job.key ?? '');
        if (started.length === WINDOW) windowStarted.resolve();
      },
    });
    // Each key holds more jobs than the whole window, so both stay busy to its end whatever
    // the order: a longer backlog would change nothing the window sees.
    for (const key of ['gold', 'basic']) {
      await tm.addJobs(Array.from({ length: WINDOW + 200 }, () => ({ queue: 'q', key })));
    }
    // A small prefetch, so each claim chooses among both keys rather than taking all of both.
    const worker = fastWorker(tm, { concurrency: 4, prefetch: 4 });
    await worker.start();
    await within(windowStarted.promise, 60_000, 'a window of starts');
    await worker.stop();
    const window = started.slice(0, WINDOW);
    const gold = window.filter((key) => key === 'gold').length;
    const ratio = gold / (window.length - gold);
    console.log(
      `fairness [${kind}]: weights 3:1 gave ${gold}:${window.length - gold} starts (${ratio.toFixed(2)})`,
    );
    assert.ok(ratio > 2 && ratio < 4.5, `gold:basic = ${ratio}`);
  });
});
