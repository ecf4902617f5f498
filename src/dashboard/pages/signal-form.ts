import type { WorkflowView } from '../../admin/workflow-wait.js';
import { isFinished } from '../../job-status.js';
import type { Job } from '../../model/job.js';
import { csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { notice } from '../layout.js';

/** What the operator typed, kept when a payload is refused so it can be corrected. */
export interface SignalFormInput {
  name: string;
  payload: string;
  error: string;
}

/** Why `tm.signal` refused, in an operator's words; keyed by the refusal reasons it returns. */
const REFUSALS: Record<string, string> = {
  'job-not-found': 'the job no longer exists',
  'job-finished': 'the job has finished',
  'unknown-signal': "the job's queue does not declare this signal",
  'mailbox-full': "the signal's mailbox is full: the job has not consumed the ones already sent",
  'wait-completed': 'the wait for this signal has already completed',
};

/** The outcome of a send, from the redirect after the POST: `{ delivered, reason }` in words. */
export function signalOutcome(ctx: DashboardContext): Html | '' {
  const params = ctx.url.searchParams;
  const name = params.get('signal');
  if (name === null) return '';
  if (params.get('done') === 'signal')
    return notice(
      'ok',
      html`Signal <span class="mono">${name}</span> sent: <code>{ delivered: true }</code>.`,
    );
  const reason = params.get('refused') ?? '';
  if (!(reason in REFUSALS)) return '';
  return notice(
    'warn',
    html`Signal <span class="mono">${name}</span> not delivered, nothing stored:
<code>{ delivered: false, reason: '${reason}' }</code>: ${REFUSALS[reason]}.`,
  );
}

/**
 * A form to send one of the queue's declared signals with a JSON payload, on a job still in
 * flight (a signal sent before the wait is kept in the mailbox). Only declared names can be
 * delivered, so a queue that declares none gets no form. Absent on a read-only dashboard.
 */
export function signalForm(
  ctx: DashboardContext,
  job: Job,
  view: WorkflowView | null,
  input?: SignalFormInput,
): Html | '' {
  if (ctx.readOnly || isFinished(job.status) || !view) return '';
  const names = Object.keys(view.declaredSignals).sort();
  if (names.length === 0)
    return html`<div class="card"><h2>Send a signal</h2><p class="muted">Queue <span class="mono">${job.queue}</span> declares no signals, so this job can receive none.</p></div>`;
  const awaited = view.wait?.kind === 'signal' ? view.wait.names[0] : undefined;
  const chosen = input?.name ?? awaited ?? names[0];
  return html`<div class="card" id="send-signal"><h2>Send a signal</h2>
${input?.error ? notice('error', input.error) : ''}
<form method="post" action="${href(ctx, `/jobs/${job.id}/signal`)}" class="signal-form">${csrfField(ctx)}
<label>signal <select name="name">${names.map(
    (name) =>
      html`<option value="${name}"${name === chosen ? html` selected` : ''}>${name} (mailbox ${view.declaredSignals[name]})</option>`,
  )}</select></label>
<label>payload (JSON; empty sends null) <textarea name="payload" rows="4" class="mono">${input?.payload ?? ''}</textarea></label>
<div><button type="submit" class="primary" data-action="signal">Send signal</button></div>
</form></div>`;
}
