import { formatCount, formatWindow } from '../../admin/format.js';
import { FINISHED_STATUSES } from '../../job-status.js';
import type { FrozenRetention } from '../../model/job.js';
import { csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice } from '../layout.js';

/** The windows as one line: "completed 7 d, failed kept forever, …". */
export function windowsText(windows: FrozenRetention): string {
  return FINISHED_STATUSES.map((s) => `${s} ${formatWindow(windows[s])}`).join(', ');
}

/** Step 1 of applying a queue's stored policy to its history: the dry-run count, and the confirm form. */
export function applyConfirmPage(
  ctx: DashboardContext,
  queue: string,
  count: number,
  windows: FrozenRetention,
): Html {
  const body =
    count === 0
      ? html`${notice('info', html`Every job of queue <strong>${queue}</strong> already carries ${windowsText(windows)}: nothing to change.`)}
<a href="${href(ctx, '/retention')}">Back</a>`
      : html`${notice(
          'info',
          html`Dry run: <strong id="apply-count">${formatCount(count)}</strong> jobs of queue <strong>${queue}</strong> would be re-frozen with ${windowsText(windows)}.
Finished ones get their purge time again from when they finished: a tighter window can make them due at the next sweep.`,
        )}
<form method="post" action="${href(ctx, '/retention/apply/confirm')}" id="apply-confirm">${csrfField(ctx)}
<input type="hidden" name="queue" value="${queue}"><input type="hidden" name="confirm" value="yes">
<button type="submit" class="danger">Apply to these jobs</button> <a href="${href(ctx, '/retention')}">Cancel</a></form>`;
  return layout(ctx, `Apply the policy of ${queue}`, '/retention', body);
}

export function applyDonePage(
  ctx: DashboardContext,
  queue: string,
  count: number,
  windows: FrozenRetention,
): Html {
  return layout(
    ctx,
    `Applied the policy of ${queue}`,
    '/retention',
    html`${notice('ok', html`Re-froze <strong id="apply-done">${formatCount(count)}</strong> jobs of queue ${queue} with ${windowsText(windows)}.`)}
<a href="${href(ctx, '/retention')}">Back to retention</a>`,
  );
}
