import { formatTime, relativeTime } from '../../admin/format.js';
import type { WorkflowView, WorkflowWait } from '../../admin/workflow-wait.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { statusBadge } from '../layout.js';

/**
 * What a parked workflow waits for, in words: "sleeping until … (cool-off)", "waiting for
 * 3 × vote (1 received), times out at …", "waiting for child 964 (shipping, active)".
 * Times are UTC; a wait with no timer says so rather than showing a far-future date.
 */
export function waitInWords(ctx: DashboardContext, view: WorkflowView): Html | '' {
  if (!view.wait) return '';
  const paused = view.pausedWhileWaiting ? html`; <strong>paused</strong>: it waits again when resumed` : '';
  return html`<span class="workflow-wait">${describe(ctx, view.wait)}${paused}</span>`;
}

function describe(ctx: DashboardContext, wait: WorkflowWait): Html {
  switch (wait.kind) {
    case 'sleep':
      return wait.until
        ? html`sleeping until ${formatTime(wait.until)} (${wait.name}) <span class="muted small">${relativeTime(wait.until)}</span>`
        : html`sleeping (${wait.name})`;
    case 'signal':
      return html`waiting for ${signalsWanted(wait)}${received(wait)}, ${
        wait.timeoutAt
          ? html`times out at ${formatTime(wait.timeoutAt)} <span class="muted small">${relativeTime(wait.timeoutAt)}</span>`
          : 'no timeout'
      }`;
    case 'child':
      return html`waiting for child <a href="${href(ctx, `/jobs/${wait.id}`)}">${wait.id}</a> (${
        wait.queue === null ? 'no longer exists' : html`${wait.queue}, ${statusBadge(wait.status ?? '')}`
      })`;
    case 'token':
      return html`waiting for callback token <span class="mono">${wait.name}</span> (<span class="mono">${wait.tokenId}</span>), ${
        wait.expiresAt
          ? html`expires at ${formatTime(wait.expiresAt)} <span class="muted small">${relativeTime(wait.expiresAt)}</span>`
          : 'no expiry recorded'
      }`;
    case 'dependencies':
      return html`waiting for the jobs it depends on (<span class="mono">dependsOn</span>) to finish`;
    default:
      return html`waiting (what for was not recorded)`;
  }
}

function signalsWanted(wait: Extract<WorkflowWait, { kind: 'signal' }>): Html {
  const names = wait.names.map((name, i) => html`${i > 0 ? ', ' : ''}<span class="mono">${name}</span>`);
  if (wait.names.length > 1) return html`any of ${names}`;
  return wait.needed > 1 ? html`${wait.needed} × ${names}` : html`${names}`;
}

/** How many have arrived; when all have, the job is due and resumes when a worker takes it. */
function received(wait: Extract<WorkflowWait, { kind: 'signal' }>): string {
  if (wait.received >= wait.needed) return ' (received: resumes when a worker takes it)';
  return wait.needed > 1 ? ` (${wait.received} received)` : '';
}
