/** How many claim round trips of work a worker holds ahead of its free slots. */
const ROUND_TRIPS_AHEAD = 4;
/** Length of one rate sample, unless WINDOW_STARTS come first. */
const WINDOW_MS = 50;
/**
 * Starts that end a rate sample early. A worker meeting a backlog starts from a rate of zero
 * and claims only for its free slots until its first sample: at 50 ms a sample, a drain of
 * 20,000 no-op jobs spent its first 200-300 ms at a tenth of its rate. Fast jobs reach this
 * count within a few milliseconds; slow ones never do, and keep the 50 ms window.
 */
const WINDOW_STARTS = 64;
/** The most an adaptive buffer holds. */
export const AUTO_PREFETCH_MAX = 1000;

/**
 * Sizes the prefetch buffer: the jobs a worker claims beyond its free slots so that its
 * slots never wait for a claim round trip. It holds about four claim round trips of work at
 * the rate jobs start, and never more than `max`. Fast jobs therefore get a deep buffer (a
 * claim statement per hundreds of jobs) while slow jobs get none: a job that takes a second
 * starts about once per 100 ms per slot, which is far less than one round trip of work, so
 * nothing is held that another worker could be running. A fixed size holds that many jobs
 * whatever the rate.
 *
 * The rate is the larger of two: the rate jobs started over the last sample, and the rate the
 * slots could start them, `concurrency` over how long a job has lately held its slot. The
 * first alone is only as high as the claims feed it: a worker meeting a backlog claimed for its
 * free slots, started that many, sized its next claim from that, and so grew by about half a
 * claim at a time (about 700 jobs in the first 125 ms of a 20,000-job drain). The second knows
 * once the first jobs end that the slots could take far more.
 */
export class PrefetchSizer {
  private rate = 0;
  private readonly max: number;
  private readonly fixed: number | null;
  private claimMs = 2;
  private windowStart: number;
  private windowStarts = 0;
  /** How long a job has held its slot lately (ms), or null before the first has ended. */
  private slotMs: number | null = null;

  /**
   * @param prefetch 'auto' (adaptive, up to AUTO_PREFETCH_MAX) or a fixed number of jobs.
   * @param concurrency the worker's slots.
   */
  constructor(
    prefetch: number | 'auto',
    private readonly concurrency: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.fixed = prefetch === 'auto' ? null : prefetch;
    this.max = prefetch === 'auto' ? AUTO_PREFETCH_MAX : prefetch;
    this.windowStart = now();
  }

  /** A job left the buffer for a slot. */
  started(): void {
    this.windowStarts++;
  }

  /** A job gave its slot back after holding it `ms`. */
  held(ms: number): void {
    this.slotMs = this.slotMs === null ? ms : this.slotMs * 0.7 + ms * 0.3;
  }

  /** A claim statement took `ms`. */
  claimed(ms: number): void {
    this.claimMs = this.claimMs * 0.7 + ms * 0.3;
  }

  /** Jobs to hold claimed beyond the free slots, now. */
  target(): number {
    if (this.fixed !== null) return this.fixed;
    const now = this.now();
    const elapsed = now - this.windowStart;
    if (elapsed >= WINDOW_MS || (this.windowStarts >= WINDOW_STARTS && elapsed > 0)) {
      const sample = (this.windowStarts * 1000) / elapsed;
      // Rising fast and falling fast: a burst gets a deep buffer at once, and an idle spell
      // (a long gap with no starts) empties it.
      this.rate = sample > this.rate ? sample : (this.rate + sample) / 2;
      if (elapsed > WINDOW_MS * 10) this.rate = sample;
      this.windowStart = now;
      this.windowStarts = 0;
    }
    // A job that gave its slot back within a microsecond (a no-op) counts as one.
    const slotsRate = this.slotMs === null ? 0 : (this.concurrency * 1000) / Math.max(this.slotMs, 0.001);
    const rate = Math.max(this.rate, slotsRate);
    return Math.min(this.max, Math.floor((rate * this.claimMs * ROUND_TRIPS_AHEAD) / 1000));
  }
}
