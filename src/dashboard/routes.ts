import { InvalidOptionError } from '../errors.js';
import { isOneOf } from '../model/guards.js';
import { ID_DIGITS, isId } from '../model/job-rules.js';
import { type ActionResult, runJobAction, runPurge, runQueueAction } from './actions.js';
import { runBulk } from './bulk-job-actions.js';
import type { DashboardContext } from './context.js';
import { runForkJob } from './fork-action.js';
import type { Html } from './html.js';
import { runKeyLimit, runKeySwitch } from './key-actions.js';
import { auditPage } from './pages/audit.js';
import { confirmCancelPage } from './pages/confirm-cancel.js';
import { confirmDeletePage } from './pages/confirm-delete.js';
import { jobDetailPage } from './pages/job-detail.js';
import { findJobPage } from './pages/job-find.js';
import { jobsPage } from './pages/jobs.js';
import { keysPage } from './pages/keys.js';
import { purgeFormPage } from './pages/purge.js';
import { queueNameFrom, queuePage } from './pages/queue.js';
import { queuesPage } from './pages/queues.js';
import { retentionPage } from './pages/retention.js';
import { runningPage } from './pages/running.js';
import { confirmUnschedulePage, schedulesPage } from './pages/schedules.js';
import { storagePage } from './pages/storage.js';
import { workersPage } from './pages/workers.js';
import { runApplyRetention, runPlaceHold, runReleaseHold, runRetentionSwitch } from './retention-actions.js';
import { runScheduleSwitch, runTriggerSchedule, runUnschedule } from './schedule-actions.js';
import { runSendSignal } from './signal-action.js';

const ID = `(${ID_DIGITS})`;

/** Nineteen digits can still pass the largest bigint; refuse those before any query. */
function jobId(match: RegExpMatchArray): string {
  if (!isId(match[1])) throw new InvalidOptionError('id', 'a job id', match[1]);
  return match[1];
}

const JOB_ACTIONS = ['retry', 'cancel', 'run-now', 'pause', 'resume', 'delete', 'delete-subtree'] as const;
const SWITCH = ['pause', 'resume'] as const;
/** A two-step action: a dry run to confirm, then the change. */
const STEPS = ['preview', 'confirm'] as const;

/** A queue's name from an action's path segment. */
function queueSegment(segment: string): string {
  const name = queueNameFrom(segment);
  if (name === null) throw new InvalidOptionError('queue', 'a queue name, URL-encoded', segment);
  return name;
}

/** A path segment matching one of these names, for a route's pattern. */
function oneOf(names: readonly string[]): string {
  return `(${names.join('|')})`;
}

/** What a route's pattern captured as `oneOf(names)`, typed as the name it is. */
function named<T extends string>(names: readonly T[], captured: string): T {
  if (!isOneOf(names, captured))
    throw new InvalidOptionError('action', `one of ${names.join(', ')}`, captured);
  return captured;
}

const JOB_EVENTS = new RegExp(`^/jobs/${ID}/events$`);

/** Whether a path asks for a job page's event stream. */
export function isJobEvents(path: string): boolean {
  return JOB_EVENTS.test(path);
}

/** The job whose event stream `path` (for which isJobEvents holds) asks for; InvalidOptionError past bigint. */
export function jobEventsId(path: string): string {
  return jobId(path.match(JOB_EVENTS) as RegExpMatchArray);
}

/** What a page renders: the page (200), a page with another status, a redirect, or null for "not found". */
export type PageResult = Html | { status: number; page: Html } | { redirect: string } | null;

interface PageRoute {
  pattern: RegExp;
  render(ctx: DashboardContext, match: RegExpMatchArray): Promise<PageResult>;
}

interface ActionRoute {
  pattern: RegExp;
  run(ctx: DashboardContext, match: RegExpMatchArray, form: URLSearchParams): Promise<ActionResult>;
}

export const pages: PageRoute[] = [
  { pattern: /^\/$/, render: (ctx) => queuesPage(ctx) },
  { pattern: /^\/jobs$/, render: (ctx) => jobsPage(ctx) },
  { pattern: /^\/jobs\/find$/, render: (ctx) => findJobPage(ctx) },
  {
    pattern: /^\/queues\/([^/]+)$/,
    render: async (ctx, m) => {
      const name = queueNameFrom(m[1]);
      return name === null ? null : queuePage(ctx, name);
    },
  },
  { pattern: new RegExp(`^/jobs/${ID}$`), render: async (ctx, m) => jobDetailPage(ctx, jobId(m)) },
  {
    pattern: new RegExp(`^/jobs/${ID}/confirm$`),
    render: (ctx, m) => {
      const action = ctx.url.searchParams.get('action');
      if (action === 'cancel') return confirmCancelPage(ctx, jobId(m));
      return action === 'delete' || action === 'delete-subtree'
        ? confirmDeletePage(ctx, jobId(m), action)
        : Promise.resolve(null);
    },
  },
  {
    pattern: /^\/queues\/([^/]+)\/keys$/,
    render: async (ctx, m) => {
      const name = queueNameFrom(m[1]);
      return name === null ? null : keysPage(ctx, name);
    },
  },
  { pattern: /^\/retention$/, render: (ctx) => retentionPage(ctx) },
  { pattern: /^\/purge$/, render: (ctx) => purgeFormPage(ctx) },
  { pattern: /^\/storage$/, render: (ctx) => storagePage(ctx) },
  { pattern: /^\/workers$/, render: (ctx) => workersPage(ctx) },
  { pattern: /^\/audit$/, render: (ctx) => auditPage(ctx) },
  { pattern: /^\/running$/, render: (ctx) => runningPage(ctx) },
  { pattern: /^\/schedules$/, render: (ctx) => schedulesPage(ctx) },
  { pattern: /^\/schedules\/confirm$/, render: (ctx) => confirmUnschedulePage(ctx) },
];

/** Every mutation: POST only, after the CSRF check, refused when read-only. */
export const actions: ActionRoute[] = [
  {
    pattern: new RegExp(`^/jobs/${ID}/${oneOf(JOB_ACTIONS)}$`),
    run: async (ctx, m) => runJobAction(ctx, jobId(m), named(JOB_ACTIONS, m[2])),
  },
  { pattern: new RegExp(`^/jobs/${ID}/signal$`), run: (ctx, m, form) => runSendSignal(ctx, jobId(m), form) },
  { pattern: new RegExp(`^/jobs/${ID}/fork$`), run: (ctx, m, form) => runForkJob(ctx, jobId(m), form) },
  {
    pattern: new RegExp(`^/queues/${oneOf(SWITCH)}$`),
    run: (ctx, m, form) => runQueueAction(ctx, form, named(SWITCH, m[1])),
  },
  {
    pattern: new RegExp(`^/purge/${oneOf(STEPS)}$`),
    run: (ctx, m, form) => runPurge(ctx, form, named(STEPS, m[1])),
  },
  {
    pattern: new RegExp(`^/retention/${oneOf(SWITCH)}$`),
    run: (ctx, m, form) => runRetentionSwitch(ctx, form, named(SWITCH, m[1])),
  },
  { pattern: /^\/retention\/holds$/, run: (ctx, _m, form) => runPlaceHold(ctx, form) },
  { pattern: /^\/retention\/holds\/release$/, run: (ctx, _m, form) => runReleaseHold(ctx, form) },
  {
    pattern: new RegExp(`^/retention/apply/${oneOf(STEPS)}$`),
    run: (ctx, m, form) => runApplyRetention(ctx, form, named(STEPS, m[1])),
  },
  { pattern: /^\/schedules\/unschedule$/, run: (ctx, _m, form) => runUnschedule(ctx, form) },
  {
    pattern: new RegExp(`^/schedules/${oneOf(SWITCH)}$`),
    run: (ctx, m, form) => runScheduleSwitch(ctx, form, named(SWITCH, m[1])),
  },
  { pattern: /^\/schedules\/trigger$/, run: (ctx, _m, form) => runTriggerSchedule(ctx, form) },
  {
    pattern: new RegExp(`^/queues/([^/]+)/keys/${oneOf(SWITCH)}$`),
    run: (ctx, m, form) => runKeySwitch(ctx, queueSegment(m[1]), form, named(SWITCH, m[2])),
  },
  {
    pattern: /^\/queues\/([^/]+)\/keys\/limit$/,
    run: (ctx, m, form) => runKeyLimit(ctx, queueSegment(m[1]), form),
  },
  {
    pattern: new RegExp(`^/jobs/bulk/${oneOf(STEPS)}$`),
    run: (ctx, m, form) => runBulk(ctx, form, named(STEPS, m[1])),
  },
];

export function findRoute<R extends { pattern: RegExp }>(
  routes: R[],
  path: string,
): { route: R; match: RegExpMatchArray } | null {
  for (const route of routes) {
    const match = path.match(route.pattern);
    if (match) return { route, match };
  }
  return null;
}
