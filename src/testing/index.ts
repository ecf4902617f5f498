/**
 * `tidemark/testing`: a Tidemark engine for tests, on an embedded database in memory and a
 * clock the test moves; assertions on what was added; a handler run alone with a fake context.
 * @module
 */

import type { TestKitOptions } from './test-kit-options.js';
import { TestTidemark } from './test-tidemark.js';

export { type ExpectedJob, expectJob, type JobLister } from './expect-job.js';
export { type FakeContextOptions, type HandlerCall, type HandlerRun, runHandler } from './run-handler.js';
export { TestClock } from './test-clock.js';
export type { TestKitOptions } from './test-kit-options.js';
export { type RunUntilIdleResult, TestTidemark } from './test-tidemark.js';

/**
 * Open a test engine on `memory://`, its clock at `now` (default: the system time), with
 * `queues` created. Moving the clock (`tm.clock.advance(seconds)`) makes due what a real
 * engine would run that much later; `tm.runUntilIdle()` runs it.
 */
export function createTestTidemark(options: TestKitOptions = {}): Promise<TestTidemark> {
  return TestTidemark.create(options);
}
