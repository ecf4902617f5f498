/** Median of a list of numbers (NaN for an empty list). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Jobs per second for `count` jobs done in `ms`. */
export function rate(count: number, ms: number): number {
  return (count * 1000) / ms;
}

export function formatNumber(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '-';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Resolves when `check()` is true, checking every `everyMs`. */
export async function until(check: () => boolean, everyMs = 2): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, everyMs));
}
