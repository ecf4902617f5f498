import type { EngineCore } from '../engine-core.js';
import { LimiterNotFoundError, LimiterRefusedError } from '../errors.js';
import { systemClock } from '../model/clock.js';
import type { QueueLimiter } from '../model/limiter.js';
import { limiterEntries } from '../queues/limiter-rules.js';
import type { ClaimedJob, TokenRequest } from '../storage/storage.js';

/** What the gate made of a limited queue's claim. */
export interface GateOutcome {
  /** Jobs to start: their tokens are taken (start them by `startBy`), or they fail at once (a `refusal`). */
  start: ClaimedJob[];
  /**
   * When the earliest job held back is due (epoch ms); null when none was. The held jobs are
   * back in the database: those not in `start`.
   */
  nextTurnAt: number | null;
}

/**
 * Take the tokens of claimed jobs of queues with limiters, in one statement, right after
 * their claim. The key and cost of each job come from its queue's rules in this
 * process, read from its data; a rule that fails, a limiter that does not exist or a cost the
 * bucket never holds makes the job fail without starting, and takes nothing.
 */
export async function passLimiters(core: EngineCore, claimed: ClaimedJob[]): Promise<GateOutcome> {
  const start: ClaimedJob[] = [];
  const asking = new Map<string, ClaimedJob>();
  const requests: TokenRequest[] = [];
  for (const job of claimed) {
    try {
      job.limits = limiterEntries(rulesOf(core, job), job.job.data);
    } catch (error) {
      job.refusal = error;
      start.push(job);
      continue;
    }
    asking.set(job.job.id, job);
    requests.push({ id: job.job.id, token: job.token, held: job.held === true, limits: job.limits });
  }
  if (requests.length === 0) return { start, nextTurnAt: null };
  const { answer: granted, sentAt } = await core.storage.limiters.grantAll(
    bucketTotals(requests),
    requests.filter((r) => r.held).map((r) => r.id),
  );
  if (granted !== null) {
    const from = countFrom(core, sentAt);
    for (const job of asking.values()) {
      if (granted.guard !== null) {
        job.startBy = startBy(from, granted.guard * 1_000, granted.granted_at, granted.started);
      }
      start.push(job);
    }
    return { start, nextTurnAt: null };
  }
  const { answer: verdicts, sentAt: takenAt } = await core.storage.limiters.takeTokens(requests);
  const from = countFrom(core, takenAt);
  let nextTurnAt: number | null = null;
  for (const { job_id, verdict, detail, turn, guard, started } of verdicts) {
    const job = asking.get(job_id) as ClaimedJob;
    if (verdict === 'granted') {
      if (guard !== null) job.startBy = startBy(from, guard * 1_000, turn, started);
      start.push(job);
    } else if (verdict === 'held') {
      if (turn !== null && (nextTurnAt === null || turn < nextTurnAt)) nextTurnAt = turn;
    } else if (verdict === 'missing') {
      job.refusal = new LimiterNotFoundError(detail ?? '');
      start.push(job);
    } else if (verdict === 'refused') {
      job.refusal = costRefusal(rulesOf(core, job), job, detail ?? '');
      start.push(job);
    }
  }
  return { start, nextTurnAt };
}

/** What the jobs ask of each bucket in all. */
function bucketTotals(requests: TokenRequest[]): { name: string; key: string; total: number }[] {
  const totals = new Map<string, { name: string; key: string; total: number }>();
  for (const request of requests) {
    for (const { name, key, cost } of request.limits) {
      const id = `${name}\u0000${key}`;
      const bucket = totals.get(id);
      if (bucket) bucket.total += cost;
      else totals.set(id, { name, key, total: cost });
    }
  }
  return [...totals.values()];
}

/**
 * When a granted job must have started (on this process's clock): its guard after the grant.
 * The statement reached the database after it was sent, and the grant is `grantedAt - started`
 * from its arrival, both on the database's clock (no skew between the clocks); so the grant
 * was no earlier than the sending plus that. Counting from the sending rather than from the
 * rows' arrival keeps the bound when the rows wait on their way back: a busy machine that
 * leaves this process unscheduled, or an event loop held by other work, delays their reading
 * by more than a guard. The margin of 1 ms covers the call from the check to the handler.
 */
function startBy(from: number, guardMs: number, grantedAt: number | null, started: number): number {
  const afterArrival = (grantedAt ?? started) - started;
  return from + afterArrival + guardMs - Math.min(1, guardMs / 2);
}

/**
 * Where a grant's guard counts from on this process's clock: the statement's sending. On the
 * test kit's clock, which stands still in the database, a statement's own time does not show
 * in its times, and the bound is on that clock: there it counts from the rows' arrival.
 */
function countFrom(core: EngineCore, sent: number): number {
  return core.clock === systemClock ? sent : performance.now();
}

function rulesOf(core: EngineCore, job: ClaimedJob): QueueLimiter[] {
  return core.registry.localQueue(job.job.queue)?.limiterRules ?? [];
}

/** The refusal of a cost more than the named limiter's bucket ever holds. */
function costRefusal(rules: QueueLimiter[], job: ClaimedJob, limiter: string): LimiterRefusedError {
  const index = rules.findIndex((rule) => rule.name === limiter);
  const cost = job.limits?.find((entry) => entry.name === limiter)?.cost;
  return new LimiterRefusedError(
    limiter,
    `limiters[${index}].cost`,
    `a cost of ${cost} is more than the bucket ever holds (its burst + 1): raise the limiter's burst to at least ${Number(cost) - 1}`,
  );
}
