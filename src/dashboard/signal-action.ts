import type { ActionResult } from './actions.js';
import { type DashboardContext, href } from './context.js';
import { errorPage } from './pages/error.js';
import { jobDetailPage } from './pages/job-detail.js';

/**
 * Send a signal from the job page: the payload must parse as JSON (empty means null), else
 * the page comes back with the message and what was typed, and nothing is sent. The outcome
 * of `tm.signal`, delivered or the reason it was refused, shows on the page after a redirect.
 */
export async function runSendSignal(
  ctx: DashboardContext,
  id: string,
  form: URLSearchParams,
): Promise<ActionResult> {
  const name = form.get('name') ?? '';
  const text = form.get('payload') ?? '';
  let payload: unknown = null;
  if (text.trim() !== '') {
    try {
      payload = JSON.parse(text);
    } catch (error) {
      // JSON.parse throws a SyntaxError.
      const reason = error instanceof Error ? error.message : String(error);
      const message = `The payload is not valid JSON (${reason}); nothing was sent.`;
      const page = await jobDetailPage(ctx, id, { name, payload: text, error: message });
      return page
        ? { status: 400, page }
        : { status: 404, page: errorPage(ctx, 'Not found', `No job ${id}`) };
    }
  }
  const outcome = await ctx.tm.signal(id, name, payload, ctx.by);
  const query = outcome.delivered ? { done: 'signal' } : { refused: outcome.reason };
  return { redirect: href(ctx, `/jobs/${id}`, { ...query, signal: name }) };
}
