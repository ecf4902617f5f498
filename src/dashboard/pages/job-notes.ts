import { formatTime } from '../../admin/format.js';
import type { Job } from '../../model/job.js';
import type { JobLogs } from '../../model/notes.js';
import { type Html, html, jsonBlock } from '../html.js';

// The card of a job page that shows what the job says of itself: tags, progress, metadata, log.

/**
 * `events`, for a job still in flight: where the page's script (assets/live.js) reads its live
 * updates; the status, progress and metadata shown here then follow the job as it runs.
 */
export function notesCard(job: Job, logs: JobLogs, events: string | null): Html {
  return html`<div class="card" id="job-notes"><h2>Progress, metadata and log</h2>
${events === null ? '' : html`<p id="live" class="small muted" data-events="${events}" hidden>Live: status, progress and metadata follow the job as it runs.</p>`}
<p>${tags(job)}</p>
<p>Progress: <span id="live-progress">${progress(job.progress)}</span></p>
<div id="live-metadata">${Object.keys(job.metadata).length === 0 ? html`<p class="muted">No metadata.</p>` : html`<h3>Metadata</h3>${jsonBlock(job.metadata)}`}</div>
<h3>Log</h3>${logTable(logs)}</div>`;
}

function tags(job: Job): Html {
  if (job.tags.length === 0) return html`<span class="muted">No tags.</span>`;
  return html`Tags: ${job.tags.map((tag, i) => html`${i > 0 ? ' ' : ''}<span class="tag mono">${tag}</span>`)}`;
}

function progress(value: Job['progress']): Html {
  if (value === null) return html`<span class="muted">none reported</span>`;
  if (typeof value === 'number') {
    return html`<progress max="100" value="${value}">${value}%</progress> ${value}%`;
  }
  return jsonBlock(value);
}

function logTable(logs: JobLogs): Html {
  const dropped =
    logs.dropped > 0
      ? html`<p class="small muted">${logs.dropped} line(s) over the job's caps were dropped.</p>`
      : '';
  if (logs.lines.length === 0) return html`<p class="muted">No lines.</p>${dropped}`;
  return html`<div class="scroll"><table><thead><tr><th>time</th><th>attempt</th><th>level</th><th>message</th><th>attributes</th></tr></thead><tbody>${logs.lines.map(
    (line) =>
      html`<tr><td class="small">${formatTime(line.at)}</td><td>${line.attempt}</td><td><span class="status status-${line.level === 'error' ? 'failed' : line.level === 'warn' ? 'retry' : 'completed'}">${line.level}</span></td><td>${line.message}</td><td>${line.attrs === null ? '' : jsonBlock(line.attrs)}</td></tr>`,
  )}</tbody></table></div>
${logs.next !== null ? html`<p class="small muted">The first ${logs.lines.length} lines; <code>tm.getJobLogs(id)</code> pages through the rest.</p>` : ''}${dropped}`;
}
