import { loadTree } from '../../admin/job-extras.js';
import { loadWorkflowView } from '../../admin/workflow-wait.js';
import { isFinished } from '../../job-status.js';
import type { Job } from '../../model/job.js';
import { actionButton, type DashboardContext, href } from '../context.js';
import { type Html, html, jsonBlock } from '../html.js';
import { layout, notice } from '../layout.js';
import { stepTimeline } from '../step-timeline.js';
import { attemptList, facts } from './job-attempts.js';
import { forkCard } from './job-fork.js';
import { historyCard } from './job-history.js';
import { notesCard } from './job-notes.js';
import { checkpointTable, errorCard, heldBy, retention, signalTable, tokenTable } from './job-sections.js';
import { type SignalFormInput, signalForm, signalOutcome } from './signal-form.js';
import { workflowTree } from './workflow-tree.js';

const DONE_MESSAGES: Record<string, string> = {
  retry: 'Job retried: it runs again.',
  cancel: 'Job cancelled (with its in-flight descendants).',
  'run-now': 'Job due now: it runs as soon as a worker has a free slot.',
  pause: 'Job paused.',
  resume: 'Job resumed.',
  fork: 'Forked: this is the new job, keeping what its original recorded before the fork point.',
};

/**
 * Everything about one job, with the actions its state allows. Null when it does not exist.
 * `signalInput` brings back a refused signal form (its message and what was typed).
 */
export async function jobDetailPage(
  ctx: DashboardContext,
  id: string,
  signalInput?: SignalFormInput,
): Promise<Html | null> {
  const detail = await ctx.tm.getJobDetail(id);
  if (!detail) return null;
  const { job, checkpoints, signals, holds } = detail;
  const [subtree, view] = await Promise.all([loadTree(ctx.core, id), loadWorkflowView(ctx.core, id)]);
  // The whole tree from its root; for a root, the subtree already read is that tree.
  const tree = job.rootId ? await loadTree(ctx.core, job.rootId) : subtree;
  const hasChildren = subtree.length > 1;
  // A plain job (no steps, no signals, no parent or children) has no workflow panels to show.
  const plain = checkpoints.length === 0 && signals.length === 0 && tree.length <= 1;
  const done = DONE_MESSAGES[ctx.url.searchParams.get('done') ?? ''];
  // A job in flight streams its changes to the page; a finished one has nothing more to say.
  const live = isFinished(job.status) ? null : href(ctx, `/jobs/${job.id}/events`);
  const body = html`
${done ? notice('ok', done) : ''}${signalOutcome(ctx)}
<div class="actions">${jobActions(ctx, job, hasChildren)}</div>
<div class="grid2">
<div class="card"><h2>Job</h2>${facts(ctx, job, view)}</div>
<div class="card"><h2>Attempts</h2>${attemptList(ctx, job, detail.history.attempts, view)}</div>
</div>
${signalForm(ctx, job, view, signalInput)}
<div class="grid2">
<div class="card"><h2>Data</h2>${jsonBlock(job.data)}</div>
<div class="card"><h2>Output</h2>${job.output === null ? html`<p class="muted">none</p>` : jsonBlock(job.output)}</div>
</div>
${job.error ? errorCard(job) : ''}
${notesCard(job, detail.logs, live)}
<div class="card chart"><h2>Step timeline</h2>${stepTimeline(job, checkpoints, detail.history)}</div>
${historyCard(ctx, job, detail.history)}
${forkCard(ctx, detail)}
${
  plain
    ? html`<p class="small muted" id="plain-job">No checkpoints, signals or workflow tree: nothing of a workflow to show.</p>`
    : html`<div class="card"><h2>Checkpoints (${checkpoints.length})</h2>${checkpointTable(checkpoints)}</div>
<div class="card"><h2>Signals (${signals.length})</h2>${signalTable(signals)}</div>
${detail.tokens.length === 0 ? '' : html`<div class="card"><h2>Callback tokens (${detail.tokens.length})</h2>${tokenTable(detail.tokens)}</div>`}
<div class="card"><h2>Workflow tree</h2>${workflowTree(ctx, tree, job.id)}</div>`
}
<div class="card"><h2>Retention</h2>${heldBy(ctx, holds)}${retention(job, hasChildren)}</div>
${live === null ? '' : html`<script src="${href(ctx, '/assets/live.js')}" defer></script>`}`;
  return layout(ctx, `Job ${job.id}`, '/jobs', body);
}

function jobActions(ctx: DashboardContext, job: Job, hasChildren: boolean): Html {
  if (ctx.readOnly)
    return html`<span class="small muted">Read-only dashboard: actions are turned off.</span>`;
  const path = (action: string) => `/jobs/${job.id}/${action}`;
  const finished = isFinished(job.status);
  // Run now: a pending job due later, or a retry-waiting one whose backoff has not passed.
  const waitsForItsTime = ['pending', 'retry'].includes(job.status) && job.runAt.getTime() > Date.now();
  return html`${finished || job.status === 'retry' ? actionButton(ctx, path('retry'), 'Retry') : ''}
${waitsForItsTime ? actionButton(ctx, path('run-now'), 'Run now') : ''}
${!finished ? html`<a class="button danger" href="${href(ctx, path('confirm'), { action: 'cancel' })}" data-action="cancel">Cancel…</a>` : ''}
${['pending', 'retry', 'waiting'].includes(job.status) ? actionButton(ctx, path('pause'), 'Pause') : ''}
${job.status === 'paused' ? actionButton(ctx, path('resume'), 'Resume') : ''}
${finished && !hasChildren ? html`<a class="button danger" href="${href(ctx, path('confirm'), { action: 'delete' })}">Delete…</a>` : ''}
${finished ? html`<a class="button danger" href="${href(ctx, path('confirm'), { action: 'delete-subtree' })}">Delete with subtree…</a>` : ''}`;
}
