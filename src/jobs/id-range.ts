import type { EngineCore } from '../engine-core.js';

/** Rows whose transaction started this long before the range may still carry a later id. */
const CLOCK_SLACK_MS = 60_000;

/** The ids a creation-time range can hold: lowest ≤ id < ceiling. */
export interface IdRange {
  lowest: bigint;
  ceiling: bigint;
}

/**
 * The ids of jobs created in [from, to), widened by a minute each way (a transaction's rows
 * carry its start time, not their insert's); null when there are no jobs. The filter still
 * checks each row's time: this only bounds the walk, by binary search over the primary key.
 */
export async function idRangeOf(
  core: EngineCore,
  from: Date | null,
  to: Date | null,
): Promise<IdRange | null> {
  const bounds = await core.storage.reads.jobIdRange();
  if (!bounds.lo || !bounds.hi) return null;
  let lowest = BigInt(bounds.lo);
  let ceiling = BigInt(bounds.hi) + 1n;
  if (from)
    lowest = await firstIdCreatedAtOrAfter(core, new Date(from.getTime() - CLOCK_SLACK_MS), lowest, ceiling);
  if (to)
    ceiling = await firstIdCreatedAtOrAfter(core, new Date(to.getTime() + CLOCK_SLACK_MS), lowest, ceiling);
  return { lowest, ceiling };
}

/**
 * The lowest id whose creation time is at or after `at`, assuming ids grow with time
 * (they are drawn from one sequence at insert). About 2·log2(ids) single-row probes.
 */
async function firstIdCreatedAtOrAfter(core: EngineCore, at: Date, lo: bigint, hi: bigint): Promise<bigint> {
  let low = lo;
  let high = hi;
  while (low < high) {
    const mid = low + (high - low) / 2n;
    const row = await core.storage.reads.firstJobFrom(String(mid));
    if (!row || BigInt(row.id) >= high) high = mid;
    else if (row.createdAt.getTime() < at.getTime()) low = BigInt(row.id) + 1n;
    else high = mid;
  }
  return low;
}
