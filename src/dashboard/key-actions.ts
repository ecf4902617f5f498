import { InvalidOptionError } from '../errors.js';
import type { ActionResult } from './actions.js';
import { type DashboardContext, href } from './context.js';

/** Pause or resume one key of a queue, then back to the queue's keys saying so. */
export async function runKeySwitch(
  ctx: DashboardContext,
  queue: string,
  form: URLSearchParams,
  action: 'pause' | 'resume',
): Promise<ActionResult> {
  const key = form.get('key') ?? '';
  if (action === 'pause') await ctx.tm.pauseKey(queue, key, ctx.by);
  else await ctx.tm.resumeKey(queue, key, ctx.by);
  return back(ctx, queue, `${action === 'pause' ? 'paused' : 'resumed'} ${key}`);
}

/** Set a key's limit from the form's `concurrency`, or drop it when the field is empty. */
export async function runKeyLimit(
  ctx: DashboardContext,
  queue: string,
  form: URLSearchParams,
): Promise<ActionResult> {
  const key = form.get('key') ?? '';
  const text = (form.get('concurrency') ?? '').trim();
  if (text !== '' && !/^\d{1,9}$/.test(text))
    throw new InvalidOptionError('concurrency', 'a whole number', text);
  const limit = text === '' ? null : { concurrency: Number(text) };
  await ctx.tm.setKeyLimit(queue, key, limit, ctx.by);
  return back(
    ctx,
    queue,
    limit ? `${key} runs at most ${limit.concurrency} at once` : `${key} follows the queue's rule`,
  );
}

function back(ctx: DashboardContext, queue: string, saved: string): ActionResult {
  return { redirect: href(ctx, `/queues/${encodeURIComponent(queue)}/keys`, { saved }) };
}
