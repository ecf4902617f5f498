import { formatApprox, formatCount } from './format.js';

/**
 * Jobs in one (queue, status) cell are counted exactly up to this many, by a walk of the
 * (queue, status, id) index that stops one row past it. Above, the count is not known.
 */
export const COUNT_CAP = 10_000;

/**
 * One cell of the queues overview and of `tidemark stats`.
 * - `exact`: `n` is the number of jobs.
 * - `atLeast`: more than `n` (= COUNT_CAP) jobs; the statistics offered no better figure.
 * - `estimate`: more than COUNT_CAP jobs, about `n` by the planner's statistics (`n` > COUNT_CAP).
 */
export interface StatusCount {
  n: number;
  exact: boolean;
  kind: 'exact' | 'atLeast' | 'estimate';
}

/**
 * The cell for a bounded count (at most COUNT_CAP + 1) and the statistics' estimate. An
 * estimate is used only when it lies above the bound the count proved: statistics from
 * before the table grew must not show fewer jobs than were just counted.
 */
export function statusCount(boundedCount: number, estimate: number | null): StatusCount {
  if (boundedCount <= COUNT_CAP) return { n: boundedCount, exact: true, kind: 'exact' };
  if (estimate !== null && estimate > COUNT_CAP)
    return { n: Math.round(estimate), exact: false, kind: 'estimate' };
  return { n: COUNT_CAP, exact: false, kind: 'atLeast' };
}

/** "2,400", "10,000+" or "≈25k": the same text on the queues page and in `tidemark stats`. */
export function formatStatusCount(count: StatusCount): string {
  if (count.kind === 'exact') return formatCount(count.n);
  if (count.kind === 'atLeast') return `${formatCount(count.n)}+`;
  // formatApprox rounds; never let the rounding show less than the proven bound.
  return `≈${formatApprox(Math.max(count.n, COUNT_CAP))}`;
}

/** A tooltip that says how a cell that is not exact was arrived at. */
export function describeStatusCount(count: StatusCount): string {
  if (count.kind === 'exact') return '';
  const bound = `more than ${formatCount(COUNT_CAP)}`;
  return count.kind === 'atLeast'
    ? `${bound}; counting stops there (the table statistics give no larger figure yet)`
    : `${bound}; about ${formatCount(count.n)} by the table statistics`;
}
