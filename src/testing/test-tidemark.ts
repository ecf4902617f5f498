import { openEngine } from '../engine.js';
import type { EngineCore } from '../engine-core.js';
import { StillBusyError } from '../errors.js';
import type { JobStatus } from '../job-status.js';
import { consoleLogger } from '../log/logger.js';
import { tickInputs, tickOnce } from '../maintenance/tick/tick.js';
import type { Job } from '../model/job.js';
import { checkInteger, checkString } from '../options/check.js';
import type { OpenOptions } from '../options/open-options.js';
import { Tidemark } from '../tidemark.js';
import type { Worker } from '../worker/worker.js';
import { TestClock } from './test-clock.js';
import { type TestKitOptions, testKitOptions } from './test-kit-options.js';

/** Jobs `runUntilIdle` runs at a time, unless its `maxJobs` is lower. */
const KIT_CONCURRENCY = 10;

/**
 * How long `runUntilIdle` waits, once it stops, for the attempts it started: in effect until
 * they finish (a handler that hangs is ended by the test's own timeout), since an attempt cut
 * short would run again at the next call and be counted twice.
 */
const LET_ATTEMPTS_FINISH = 86_400;

/** What `runUntilIdle` did. */
export interface RunUntilIdleResult {
  /** Attempts started (a workflow resumed after a sleep counts again). */
  attempts: number;
  /** Whether nothing was left to run; false only when `maxJobs` stopped it first. */
  idle: boolean;
}

/**
 * A Tidemark engine for tests: embedded, in memory, on a clock that stands still until the
 * test moves it (`tm.clock`), with `runUntilIdle` to run what is due and `jobs` to see what
 * was added. Everything else is the engine as users run it.
 */
export class TestTidemark extends Tidemark {
  /** The engine's clock: `now()`, `advance(seconds)`, `set(date)`. */
  readonly clock: TestClock;
  #worker: Worker | null = null;

  private constructor(
    core: EngineCore,
    clock: TestClock,
    private readonly maxJobsPerRun: number,
  ) {
    super(core);
    this.clock = clock;
  }

  /** Open a test engine; see `createTestTidemark`. */
  static async create(input: TestKitOptions = {}): Promise<TestTidemark> {
    return TestTidemark.openOn('memory://', input);
  }

  /**
   * The kit on another database: for Tidemark's own suites, which give each engine a schema
   * of its own on a shared server. Not for users: an engine of the application on the same
   * schema would read the real time while this one reads the test's.
   * @internal
   */
  static async openOn(database: OpenOptions['database'], input: TestKitOptions = {}): Promise<TestTidemark> {
    const { now, queues, maxJobsPerRun } = testKitOptions.read(input ?? {});
    // Checked whole above; the engine's own options go to it as given, for it to read.
    const { now: _now, queues: _queues, maxJobsPerRun: _max, ...open } = input ?? {};
    const clock = new TestClock(now ?? new Date());
    const core = await openEngine(
      { ...open, database, logger: open.logger ?? consoleLogger('error') },
      { testClock: clock.engineClock },
    );
    clock.attach(core.storage);
    const tm = new TestTidemark(core, clock, maxJobsPerRun);
    try {
      for (const queue of queues ?? []) tm.createQueue(queue);
      await tm.ready();
    } catch (error) {
      await tm.close();
      throw error;
    }
    return tm;
  }

  /**
   * Run every job that is due now on the queues with a handler here, and what that makes due
   * (a child's parent, a retry whose backoff has passed, a workflow whose timer is due), until
   * none is left; fire due schedules, recover jobs whose lock lapsed and expire those past
   * their expiry on the way, as the maintenance tick does. Time does not move: a job due
   * later waits for `clock.advance`. `maxJobs` stops it after that many attempts.
   */
  async runUntilIdle(options: { maxJobs?: number } = {}): Promise<RunUntilIdleResult> {
    const limit = options.maxJobs;
    const maxJobs = limit === undefined ? this.maxJobsPerRun : checkInteger(limit, 'maxJobs', 1, 1_000_000);
    await this.ready();
    const queues = this.core.registry
      .localNames()
      .filter((name) => this.core.registry.localQueue(name)?.handler);
    let attempts = 0;
    const worker = this.kitWorker(maxJobs);
    // Stop at the limit from the event itself: on the embedded database a run of jobs can keep
    // the event loop in promise callbacks, so a timer that polled the count would fire late.
    const stopCounting = this.core.events.on('job:started', () => {
      if (++attempts === maxJobs) void this.stopKitWorker(LET_ATTEMPTS_FINISH);
    });
    // The tick runs while the worker claims nothing: before it starts, then each time it has
    // settled. A claim beside the tick would skip the rows the tick holds, and jobs due at once
    // (a batch's, say) would run in two parts.
    const tick = async () => this.core.events.emit('maintenance:tick', await tickOnce(tickInputs(this.core)));
    try {
      await tick();
      await worker.start();
      for (;;) {
        // What the tick made due it also announced: the worker may claim it at once, so idle
        // is judged only once the worker has settled. The tick's counts go to
        // `maintenance:tick` listeners, as a worker's tick's do.
        await settled(worker, () => attempts >= maxJobs);
        if (attempts >= maxJobs) break;
        if (!worker.busy && (await this.core.storage.testKit.countClaimableJobs(queues)) === 0) {
          return { attempts, idle: true };
        }
        await tick();
        worker.wake();
      }
      if (limit === undefined) throw new StillBusyError(attempts);
      return { attempts, idle: false };
    } finally {
      stopCounting();
      // Between calls nothing runs: a job added now waits for the next call, as the test expects.
      // What started finishes first (the limit's stop, joined here, waits for it as well).
      await this.stopKitWorker(LET_ATTEMPTS_FINISH);
    }
  }

  /** The jobs added to `queue`, oldest first; of one status when given. */
  async jobs(queue: string, options: { status?: JobStatus } = {}): Promise<Job[]> {
    const name = checkString(queue, 'queue');
    await this.ready();
    return this.core.storage.testKit.jobsOfQueue(name, options.status ?? null);
  }

  override async close(): Promise<void> {
    await this.stopKitWorker(0);
    await super.close();
  }

  /**
   * The worker `runUntilIdle` runs jobs on: started for each call, polling never; made again
   * only when a call's `maxJobs` asks for another concurrency (fewer than 10 jobs at a time).
   */
  private kitWorker(maxJobs: number): Worker {
    const concurrency = Math.min(maxJobs, KIT_CONCURRENCY);
    if (this.#worker === null || this.#worker.options.concurrency !== concurrency) {
      this.#worker = this.worker({
        id: `test-kit-${concurrency}`,
        concurrency,
        prefetch: 0,
        // A partial batch runs with what is due: the kit's clock moves only when the test says.
        batchWaitSeconds: 0,
        sweep: false,
        uniqueLockSweep: false,
        pollIntervalSeconds: 3_600,
        tickIntervalSeconds: 3_600,
      });
    }
    return this.#worker;
  }

  private async stopKitWorker(timeoutSeconds: number): Promise<void> {
    await this.#worker?.stop({ timeoutSeconds });
  }
}

/** Wait until `worker` holds no work (nothing claimed, running or being written), or `enough`. */
async function settled(worker: Worker, enough: () => boolean): Promise<void> {
  // A claim the wake started has not begun yet on the first turn: give it one.
  await new Promise((resolve) => setImmediate(resolve));
  while (worker.busy && !enough()) await new Promise((resolve) => setTimeout(resolve, 1));
}
