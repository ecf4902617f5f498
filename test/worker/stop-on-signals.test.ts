import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  DriverClosedError,
  InvalidOptionError,
  JobStatus,
  type StopOnSignalsOptions,
  silentLogger,
  Tidemark,
} from '../../src/index.js';
import { type DriverKind, dropSchema, freshSchema, PG_URL, TEST_DRIVERS } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { aborted, fastWorker, waitForStatus } from '../support/jobs.js';
import { scriptArgs } from '../support/node-args.js';
import { seedEmbeddedFolder } from '../support/pglite-boot.js';
import { waitFor } from '../support/wait-for.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/stop-on-signals-worker.ts', import.meta.url));
const STOPPING = 'log info stopping workers and closing on signal';

/** Where one test's engine lives: a pg schema, or an embedded folder a child process can open. */
interface Place {
  database: string;
  schema: string;
}

interface Child {
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first stdout line equal to `text` (fails once the process has exited without it). */
  line(text: string): Promise<string>;
  kill(signal: NodeJS.Signals): void;
}

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

let folder: Promise<string> | null = null;

/**
 * A fresh schema; on PGlite in one embedded folder for the file (seeding one takes a second or
 * two). An embedded database has one owner: the child opens the folder while this process has
 * it closed, and the tests of the file run one after another.
 */
async function newPlace(kind: DriverKind): Promise<Place> {
  const schema = freshSchema();
  if (kind === 'pg') {
    cleanups.push(() => dropSchema('pg', schema));
    return { database: PG_URL, schema };
  }
  folder ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidemark-signals-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await seedEmbeddedFolder(join(dir, 'db'));
    return join(dir, 'db');
  })();
  return { database: await folder, schema };
}

async function withEngine<T>(place: Place, body: (tm: Tidemark) => Promise<T>): Promise<T> {
  const tm = await Tidemark.open({ ...place, logger: silentLogger });
  try {
    return await body(tm);
  } finally {
    await tm.close();
  }
}

/** Add one job to the 'graceful' queue, with the engine closed again before the child opens it. */
function addJob(place: Place): Promise<string> {
  return withEngine(place, async (tm) => {
    tm.createQueue({ name: 'graceful' });
    return (await tm.addJob({ queue: 'graceful' })).id;
  });
}

function startChild(
  place: Place,
  env: { jobMs: number; afterSignal?: boolean; shutdownSeconds?: number; stop?: StopOnSignalsOptions },
): Child {
  const child = spawn(process.execPath, scriptArgs(FIXTURE), {
    env: {
      ...process.env,
      TM_DATABASE: place.database,
      TM_SCHEMA: place.schema,
      TM_JOB_MS: String(env.jobMs),
      TM_JOB_AFTER_SIGNAL: env.afterSignal ? '1' : '0',
      TM_SHUTDOWN_SECONDS: String(env.shutdownSeconds ?? 30),
      TM_STOP_OPTIONS: JSON.stringify(env.stop ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let done = false;
  // 'close' rather than 'exit': it comes after the last of the child's output has been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  return {
    lines,
    exited,
    line: (text) =>
      waitFor(
        `the line "${text}"`,
        () => {
          if (lines.includes(text)) return text;
          if (done) throw new Error(`the worker exited before "${text}": ${lines.join('\n')}\n${stderr}`);
          return null;
        },
        { timeoutMs: 30_000 },
      ),
    kill: (signal) => {
      if (!done) child.kill(signal);
    },
  };
}

/**
 * Send `signal` to a child whose job is running: the process waits for the handler, which
 * finishes after the signal arrived, completes the job once, and exits 0.
 */
async function expectFinishedBeforeExit(
  place: Place,
  child: Child,
  id: string,
  signal: NodeJS.Signals,
): Promise<void> {
  child.kill(signal);
  assert.deepEqual(await child.exited, { code: 0, signal: null });
  assert.ok(child.lines.indexOf(STOPPING) < child.lines.indexOf(`finished ${id}`), child.lines.join('\n'));
  const job = await withEngine(place, (tm) => tm.getJob(id));
  assert.equal(job?.status, JobStatus.COMPLETED);
  assert.equal(job?.attempts, 1);
  assert.equal(job?.output, 'done');
}

for (const kind of TEST_DRIVERS) {
  describe(`a worker process with tm.stopOnSignals() [${kind}]`, () => {
    test('SIGTERM mid-job: the job finishes within the timeout, completes, and the process exits 0', async () => {
      const place = await newPlace(kind);
      const id = await addJob(place);
      const child = startChild(place, { jobMs: 300, afterSignal: true, stop: { timeoutSeconds: 20 } });
      await child.line(`started ${id} 1`);
      await expectFinishedBeforeExit(place, child, id, 'SIGTERM');
    });

    test('SIGTERM mid-job: a job still running at the timeout is released with its attempt not counted, the process exits 0, and another worker completes it', async () => {
      const place = await newPlace(kind);
      const id = await addJob(place);
      const child = startChild(place, { jobMs: 60_000, stop: { timeoutSeconds: 0.3 } });
      await child.line(`started ${id} 1`);
      child.kill('SIGTERM');
      assert.deepEqual(await child.exited, { code: 0, signal: null });
      assert.ok(!child.lines.includes(`finished ${id}`));
      await withEngine(place, async (tm) => {
        const released = await tm.getJob(id);
        assert.equal(released?.status, JobStatus.PENDING);
        assert.equal(released?.attempts, 0);
        assert.equal(released?.lockedBy, null);
        assert.equal(released?.lockedUntil, null);
        const seen: number[] = [];
        tm.createQueue({
          name: 'graceful',
          handler: (job) => {
            seen.push(job.attempts);
            return 'again';
          },
        });
        await fastWorker(tm).start();
        assert.equal(await tm.result(id, { timeoutSeconds: 20 }), 'again');
        assert.deepEqual(seen, [1]);
        assert.equal((await tm.getJob(id))?.attempts, 1);
      });
    });

    test("SIGINT mid-job: the worker's own shutdownTimeoutSeconds applies, the job completes, the process exits 0", async () => {
      const place = await newPlace(kind);
      const id = await addJob(place);
      const child = startChild(place, { jobMs: 300, afterSignal: true, shutdownSeconds: 20 });
      await child.line(`started ${id} 1`);
      await expectFinishedBeforeExit(place, child, id, 'SIGINT');
    });

    test('a second SIGTERM during the shutdown exits at once with code 143, leaving the job to its lock', async () => {
      const place = await newPlace(kind);
      const id = await addJob(place);
      const child = startChild(place, { jobMs: 60_000, stop: { timeoutSeconds: 60 } });
      await child.line(`started ${id} 1`);
      child.kill('SIGTERM');
      await child.line(STOPPING);
      child.kill('SIGTERM');
      assert.deepEqual(await child.exited, { code: 143, signal: null });
      const job = await withEngine(place, (tm) => tm.getJob(id));
      assert.equal(job?.status, JobStatus.ACTIVE);
      assert.equal(job?.attempts, 1);
    });
  });
}

describeEachDriver('tm.stopOnSignals() in this process', ({ open }) => {
  test('exit: false stops the workers (releasing what outruns timeoutSeconds), closes the engine and leaves the process running', async () => {
    const tm = await open({ logger: silentLogger });
    const watcher = await open({ schema: tm.schema, logger: silentLogger });
    tm.createQueue({ name: 'q', handler: (_job, ctx) => aborted(ctx.signal) });
    const { id } = await tm.addJob({ queue: 'q' });
    // The worker's own timeout would hold the test for a minute: the option's 0.1 s applies.
    const worker = fastWorker(tm, { shutdownTimeoutSeconds: 60 });
    const listeners = process.listenerCount('SIGUSR2');
    const remove = tm.stopOnSignals({ signals: ['SIGUSR2'], timeoutSeconds: 0.1, exit: false });
    assert.equal(process.listenerCount('SIGUSR2'), listeners + 1);
    try {
      await worker.start();
      await waitForStatus(tm, id, JobStatus.ACTIVE);
      process.emit('SIGUSR2', 'SIGUSR2');
      // Removed at the first signal: a second one is the application's to handle.
      assert.equal(process.listenerCount('SIGUSR2'), listeners);
      const released = await waitForStatus(watcher, id, JobStatus.PENDING, 5_000);
      assert.equal(released.attempts, 0);
      assert.equal(released.lockedBy, null);
      await waitFor('the engine to close', async () => {
        try {
          await tm.getJob(id);
          return false;
        } catch (error) {
          return error instanceof DriverClosedError;
        }
      });
      assert.equal(worker.isRunning, false);
    } finally {
      remove();
    }
  });

  test('the returned function removes the handlers', async () => {
    const tm = await open({ logger: silentLogger });
    const term = process.listenerCount('SIGTERM');
    const int = process.listenerCount('SIGINT');
    const remove = tm.stopOnSignals();
    assert.equal(process.listenerCount('SIGTERM'), term + 1);
    assert.equal(process.listenerCount('SIGINT'), int + 1);
    remove();
    remove();
    assert.equal(process.listenerCount('SIGTERM'), term);
    assert.equal(process.listenerCount('SIGINT'), int);
  });

  test('bad options throw InvalidOptionError and install nothing', async () => {
    const tm = await open({ logger: silentLogger });
    const term = process.listenerCount('SIGTERM');
    const bad: [unknown, string][] = [
      [null, 'options'],
      [{ signal: ['SIGTERM'] }, 'signal'],
      [{ signals: 'SIGTERM' }, 'signals'],
      [{ signals: [] }, 'signals'],
      [{ signals: ['SIGTERM', 'SIGKILL'] }, 'signals[1]'],
      [{ signals: ['SIGNOPE'] }, 'signals[0]'],
      [{ timeoutSeconds: -1 }, 'timeoutSeconds'],
      [{ timeoutSeconds: Number.NaN }, 'timeoutSeconds'],
      [{ exit: 'yes' }, 'exit'],
    ];
    for (const [options, field] of bad) {
      assert.throws(
        () => tm.stopOnSignals(options as StopOnSignalsOptions),
        (error) => error instanceof InvalidOptionError && error.field === field,
        JSON.stringify(options),
      );
    }
    assert.equal(process.listenerCount('SIGTERM'), term);
    const worker = fastWorker(tm);
    await assert.rejects(worker.stop({ timeoutSeconds: -1 }), InvalidOptionError);
  });
});
