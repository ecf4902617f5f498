import {
  DatabaseLockedError,
  DriverClosedError,
  HoldNotFoundError,
  InvalidOptionError,
  JobNotFoundError,
  QueueNotFoundError,
  ScheduleNotFoundError,
  type TidemarkError,
} from '../errors.js';

/**
 * The HTTP status of a typed refusal: the engine said no on purpose, so the page shows its
 * message instead of a 500. Unknown errors are not refusals and stay 500.
 */
export function refusalStatus(error: TidemarkError): number {
  if (
    error instanceof JobNotFoundError ||
    error instanceof QueueNotFoundError ||
    error instanceof HoldNotFoundError ||
    error instanceof ScheduleNotFoundError
  )
    return 404;
  if (error instanceof InvalidOptionError) return 400;
  // The engine is closed or its folder is taken: the dashboard is up but cannot serve now.
  if (error instanceof DriverClosedError || error instanceof DatabaseLockedError) return 503;
  // A state conflict: the job, queue or retention switch is not in a state that allows it.
  return 409;
}

export function refusalTitle(status: number): string {
  if (status === 400) return 'Bad request';
  if (status === 404) return 'Not found';
  if (status === 503) return 'Unavailable';
  return 'Refused';
}
