/**
 * Where the engine reads the time of day: when a step was recorded, when a workflow's timer is
 * due, how old a job must be to match a filter. The system's clock in production; the test
 * kit's (`tidemark/testing`), which moves only when a test moves it, in tests. Durations that
 * are real waiting (a handler's run time, a shutdown timeout, a poll interval) are measured on
 * the system's clocks, not here: a test clock that stands still must not stall them.
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
}

/** The system's clock. */
export const systemClock: Clock = { now: () => Date.now() };
