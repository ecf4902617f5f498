import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { type Job, silentLogger, type Tidemark } from '../../src/index.js';
import { isStorableText } from '../../src/options/check.js';
import type { AttemptOutcome } from '../../src/storage/storage.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

const HEALTHY = 6;

/**
 * What a bad attempt ends with, prepared before its handler waits (so every handler settles in
 * the same turn): an error to throw, or an output to return.
 */
const BAD: Record<string, (tm: Tidemark) => Promise<{ throw: unknown } | { return: unknown }>> = {
  // What JSON.parse says about binary input: the message quotes the NUL.
  'nul-message': async () => ({ throw: catchError(() => JSON.parse('\u0000\u0001binary')) }),
  // A message cut in half: the emoji's high surrogate is left alone at the end.
  'cut-message': async () => ({ throw: new Error(`cut: ${'party 🎉'.slice(0, -1)}`) }),
  'bad-fields': async () => ({
    throw: Object.assign(new Error('fields'), {
      code: 'E\u0000',
      details: { 'k\ud800': 'v\udfff', nested: ['\u0000'] },
    }),
  }),
  // Tidemark's own error about a bad argument, quoting it cut at 80 units: mid-emoji here.
  'own-error-cut': async (tm) => ({
    throw: await tm.addJob(['x' + '😀'.repeat(50)] as never).then(
      () => new Error('the add was expected to fail'),
      (error: unknown) => error,
    ),
  }),
  // An output jsonb cannot hold: refused when the handler returns it.
  'nul-output': async () => ({ return: 'a\u0000b' }),
};

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** Every string in a stored value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]);
  }
  return [];
}

/** Every job of `ids` once each has completed or failed, in the order of `ids`. */
function allEnded(tm: Tidemark, ids: string[]): Promise<Job[]> {
  return waitFor(
    'every job to finish',
    async () => {
      const all = await Promise.all(ids.map((id) => tm.getJob(id)));
      return all.every((j) => j && ['completed', 'failed'].includes(j.status)) ? (all as Job[]) : null;
    },
    { timeoutMs: 30_000 },
  );
}

describeEachDriver('outcomes the database cannot store', ({ open }) => {
  test('one unstorable error or output in a batch fails only its own attempt; the healthy jobs complete after one run', async () => {
    const tm = await open({ logger: silentLogger });
    const runs = new Map<string, number>();
    const gate = deferred();
    let arrived = 0;
    tm.createQueue({
      name: 'mixed',
      maxAttempts: 2,
      backoff: { delaySeconds: 0.05, jitter: false },
      handler: async (job: Job<{ kind: string }>) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        const bad = BAD[job.data.kind];
        const ending = bad ? await bad(tm) : { return: { ok: true } };
        arrived++;
        await gate.promise;
        if ('throw' in ending) throw ending.throw;
        return ending.return;
      },
    });
    const batches = recordBatches(tm);
    const kinds = [...Array.from({ length: HEALTHY }, () => 'healthy'), ...Object.keys(BAD)];
    const added = await tm.addJobs(kinds.map((kind) => ({ queue: 'mixed', data: { kind } })));
    const ids = added.map((r) => r.id);
    const worker = fastWorker(tm, { concurrency: 16, lockSeconds: 3 });
    await worker.start();
    await waitFor('every handler to be running', () => arrived === kinds.length);
    gate.resolve();

    const jobs = await allEnded(tm, ids);
    assert.equal(batches[0], kinds.length, 'the first outcomes were written as one batch');
    jobs.forEach((job, i) => {
      const kind = kinds[i];
      if (kind === 'healthy') {
        assert.deepEqual(
          { status: job.status, attempts: job.attempts, runs: runs.get(job.id) },
          { status: 'completed', attempts: 1, runs: 1 },
          `healthy job ${job.id}`,
        );
        assert.deepEqual(job.output, { ok: true });
        return;
      }
      // The bad ones fail, are retried by the queue's policy, and fail again.
      assert.deepEqual(
        { status: job.status, attempts: job.attempts, runs: runs.get(job.id) },
        { status: 'failed', attempts: 2, runs: 2 },
        kind,
      );
      assert.ok(job.error, kind);
      for (const text of strings(job.error))
        assert.ok(isStorableText(text), `${kind}: ${JSON.stringify(text)}`);
    });
    const errorOf = (kind: string) => jobs[kinds.indexOf(kind)].error as Record<string, unknown>;
    assert.equal(errorOf('nul-message').name, 'SyntaxError');
    assert.equal(
      errorOf('nul-message').message,
      `Unexpected token '\ufffd', "\ufffd\u0001binary" is not valid JSON`,
    );
    assert.equal(errorOf('cut-message').message, 'cut: party \ufffd');
    assert.equal(errorOf('bad-fields').code, 'E\ufffd');
    assert.deepEqual(errorOf('bad-fields').details, { 'k\ufffd': 'v\ufffd', nested: ['\ufffd'] });
    assert.equal(errorOf('own-error-cut').name, 'InvalidOptionError');
    assert.match(
      errorOf('own-error-cut').message as string,
      /^invalid option 'job': expected an object, got \["x(😀)+…$/u,
    );
    assert.equal(errorOf('nul-output').name, 'InvalidOptionError');
    assert.match(errorOf('nul-output').message as string, /invalid option 'output'/);
  });

  test('an outcome the database refuses fails that attempt with OutcomeRefusedError; the rest of its batch is written', async () => {
    const tm = await open({ logger: silentLogger });
    const runs = new Map<string, number>();
    const gate = deferred();
    let arrived = 0;
    tm.createQueue({
      name: 'refused',
      maxAttempts: 2,
      backoff: { delaySeconds: 0.05, jitter: false },
      handler: async (job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        arrived++;
        await gate.promise;
        return { n: job.data };
      },
    });
    const added = await tm.addJobs(Array.from({ length: 8 }, (_, n) => ({ queue: 'refused', data: n })));
    const ids = added.map((r) => r.id);
    const target = ids[5];
    // No path of the engine hands the database an output it refuses; stand in for one (JSON
    // text that jsonb cannot hold), so the database's own refusal is what the worker meets.
    const storage = engineOf(tm).storage;
    const finishAttempts = storage.attempts.finishAttempts.bind(storage);
    const batches: number[] = [];
    storage.attempts.finishAttempts = (outcomes: AttemptOutcome[]) => {
      batches.push(outcomes.length);
      return finishAttempts(
        outcomes.map((o) => (o.id === target && o.ok ? { ...o, output: '"\\u0000"' } : o)),
      );
    };
    const worker = fastWorker(tm, { concurrency: 8, lockSeconds: 3 });
    await worker.start();
    await waitFor('every handler to be running', () => arrived === ids.length);
    gate.resolve();
    const jobs = await allEnded(tm, ids);
    assert.equal(batches[0], ids.length, 'the outcomes were first written as one batch');
    for (const job of jobs) {
      if (job.id === target) continue;
      assert.deepEqual([job.status, job.attempts, runs.get(job.id)], ['completed', 1, 1], job.id);
    }
    const bad = jobs[5];
    assert.deepEqual([bad.status, bad.attempts, runs.get(bad.id)], ['failed', 2, 2]);
    assert.equal(bad.error?.name, 'OutcomeRefusedError');
    assert.equal(bad.error?.code, 'OUTCOME_REFUSED');
    assert.match(bad.error?.message ?? '', /refused to store the output of job \d+'s attempt \(22P05: /);
  });
});

/** The size of each finishing statement the engine runs. */
function recordBatches(tm: Tidemark): number[] {
  const storage = engineOf(tm).storage;
  const finishAttempts = storage.attempts.finishAttempts.bind(storage);
  const sizes: number[] = [];
  storage.attempts.finishAttempts = (outcomes: AttemptOutcome[]) => {
    sizes.push(outcomes.length);
    return finishAttempts(outcomes);
  };
  return sizes;
}
