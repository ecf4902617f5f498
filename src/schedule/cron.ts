import { Cron } from 'croner';
import { InvalidOptionError } from '../errors.js';

/** Check a cron expression and timezone with croner; throws InvalidOptionError naming the field. */
export function checkCron(expression: unknown, timezone: unknown): { cron: string; timezone: string } {
  if (typeof expression !== 'string' || expression.trim().length === 0 || expression.length > 200) {
    throw new InvalidOptionError('cron', 'a cron expression such as "*/5 * * * *"', expression);
  }
  const zone = timezone === undefined ? 'UTC' : timezone;
  if (typeof zone !== 'string' || !isTimeZone(zone)) {
    throw new InvalidOptionError('timezone', 'an IANA time zone such as "Europe/Paris"', timezone);
  }
  try {
    const cron = new Cron(expression, { timezone: zone, paused: true });
    if (cron.nextRun() === null) throw new Error('never fires');
    cron.stop();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidOptionError('cron', `a valid cron expression (${reason})`, expression);
  }
  return { cron: expression, timezone: zone };
}

/**
 * The most recent fire time in (after, now], or null when none is due. Only the latest
 * missed fire is returned: after downtime a schedule fires once, not once per missed slot.
 */
export function latestDueFire(expression: string, timezone: string, after: Date, now: Date): Date | null {
  const cron = new Cron(expression, { timezone, paused: true });
  try {
    const next = cron.nextRun(after);
    if (!next || next.getTime() > now.getTime()) return null;
    const [previous] = cron.previousRuns(1, new Date(now.getTime() + 1));
    return previous && previous.getTime() > after.getTime() ? previous : next;
  } finally {
    cron.stop();
  }
}

/** The first fire time after `after`, or null when the expression never fires again. */
export function nextFire(expression: string, timezone: string, after: Date): Date | null {
  const cron = new Cron(expression, { timezone, paused: true });
  try {
    return cron.nextRun(after);
  } finally {
    cron.stop();
  }
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
