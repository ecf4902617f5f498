import type { EngineCore } from '../engine-core.js';
import { LimiterNotFoundError, LimiterRefusedError } from '../errors.js';
import type { QueueLimiter } from '../model/limiter.js';
import { limiterEntries } from '../queues/limiter-rules.js';
import type { ClaimedJob, TokenRequest } from '../storage/storage.js';

/** What the gate made of a limited queue's claim. */
export interface GateOutcome {
  /** Jobs to start now: their tokens are taken, or they fail at once (a `refusal`). */
  start: ClaimedJob[];
  /** Jobs held back for their turn (back in the database, due then). */
  held: number;
  /** When the earliest of them is due, in epoch milliseconds; null when none was held. */
  nextTurnAt: number | null;
}

/**
 * Take the tokens of a limited queue's claimed jobs before any of them starts, granting at
 * most `slots` (one statement). The key and cost of each job come from the queue's rules in
 * this process, read from its data; a rule that fails, a limiter that does not exist or a
 * cost the bucket never holds makes the job fail without starting, and takes nothing.
 */
export async function passLimiters(
  core: EngineCore,
  rules: QueueLimiter[],
  claimed: ClaimedJob[],
  slots: number,
): Promise<GateOutcome> {
  const start: ClaimedJob[] = [];
  const asking = new Map<string, ClaimedJob>();
  const requests: TokenRequest[] = [];
  for (const job of claimed) {
    try {
      job.limits = limiterEntries(rules, job.job.data);
    } catch (error) {
      job.refusal = error;
      start.push(job);
      continue;
    }
    asking.set(job.job.id, job);
    requests.push({ id: job.job.id, token: job.token, limits: job.limits });
  }
  if (requests.length === 0) return { start, held: 0, nextTurnAt: null };
  const verdicts = await core.storage.limiters.takeTokens(requests, Math.max(slots - start.length, 0));
  let held = 0;
  let nextTurnAt: number | null = null;
  for (const { job_id, verdict, detail, turn } of verdicts) {
    const job = asking.get(job_id) as ClaimedJob;
    if (verdict === 'granted') start.push(job);
    else if (verdict === 'held') {
      held++;
      if (turn !== null && (nextTurnAt === null || turn < nextTurnAt)) nextTurnAt = turn;
    } else if (verdict === 'missing') {
      job.refusal = new LimiterNotFoundError(detail ?? '');
      start.push(job);
    } else if (verdict === 'refused') {
      job.refusal = costRefusal(rules, job, detail ?? '');
      start.push(job);
    }
  }
  return { start, held, nextTurnAt };
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
