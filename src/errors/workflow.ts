import { errorSuffix, TidemarkError } from './base.js';

/** The queue does not declare a signal of this name. */
export class UnknownSignalError extends TidemarkError {
  constructor(queue: string, signal: string) {
    super('UNKNOWN_SIGNAL', `queue '${queue}' does not declare signal '${signal}'`, { queue, signal });
  }
}

/** A workflow used the same step name twice in one run. */
export class DuplicateStepError extends TidemarkError {
  constructor(name: string) {
    super('DUPLICATE_STEP', `step name '${name}' is used twice in this run; step names must be unique`, {
      name,
    });
  }
}

/** A child job failed or was cancelled; thrown from `ctx.runChild`. Its message carries the child's error. */
export class ChildJobFailedError extends TidemarkError {
  readonly childId: string;
  readonly queue: string | undefined;
  readonly status: string;
  constructor(childId: string, status: string, error: unknown, queue?: string) {
    const where = queue === undefined ? `child job ${childId}` : `child job ${childId} (queue '${queue}')`;
    super('CHILD_JOB_FAILED', `${where} ended ${status}${errorSuffix(error)}`, {
      childId,
      queue,
      status,
      error,
    });
    this.childId = childId;
    this.queue = queue;
    this.status = status;
  }
}

/** A workflow call as the run's record names it: its kind (`step`, `sleep`, `wait`, `child`, ...) and name. */
export interface RecordedCall {
  kind: string;
  name: string;
}

/**
 * A replayed workflow made a call that its record does not have at that place: another kind or
 * name, or none where the record has one. The code changed under a run in flight; the job is
 * parked as `paused` with this error, its checkpoints untouched, until `resumeJob` after a
 * fixed deploy. Branch around old runs with `ctx.patched(name)`.
 */
export class NonDeterminismError extends TidemarkError {
  /** The call's place in the run, 1 for the first workflow call. */
  readonly position: number;
  /** What the record has at that place. */
  readonly expected: RecordedCall;
  /** What the code did there: a call, or null when the run ended without it. */
  readonly actual: RecordedCall | null;
  constructor(position: number, expected: RecordedCall, actual: RecordedCall | null) {
    const did = actual === null ? 'ended the run' : `called ${actual.kind} '${actual.name}'`;
    super(
      'NON_DETERMINISM',
      `the workflow's record has ${expected.kind} '${expected.name}' at call ${position}, but the code ${did}: ` +
        'the code changed under a run in flight (branch with ctx.patched, or fork the job)',
      { position, expected, actual },
    );
    this.position = position;
    this.expected = expected;
    this.actual = actual;
  }
}
