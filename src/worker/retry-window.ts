/** 100 ms, doubling, at most 2 s: a database back from an outage sees held outcomes within 2 s. */
export function defaultRetryDelayMs(failures: number): number {
  return Math.min(100 * 2 ** (failures - 1), 2_000);
}

/**
 * How long a worker retries writing finished work (outcomes, completion transactions) when
 * the database does not answer: for as long as the worker runs, then, once it stops, until
 * its shutdown timeout. Handlers' results are not thrown away because an outage outlasted a
 * fixed schedule.
 */
export class RetryWindow {
  /** Retries stop at this time (ms since the epoch); null while the worker runs. */
  private deadline: number | null = null;
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly delayMs: (failures: number) => number = defaultRetryDelayMs) {}

  /** Close the window at `deadline` (ms since the epoch), or reopen it (null). Wakes waiting retries. */
  closeAt(deadline: number | null): void {
    this.deadline = deadline;
    for (const wake of [...this.sleepers]) wake();
  }

  /** Cut the waits of retries short, so they try again now (the database may answer again). */
  wake(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  /**
   * Wait before retry number `failures` (from 1). False when the window has closed: give up.
   * A wait cut short by the window closing still allows that one last try.
   */
  async beforeRetry(failures: number): Promise<boolean> {
    let ms = this.delayMs(failures);
    if (this.deadline !== null) {
      const left = this.deadline - Date.now();
      if (left <= 0) return false;
      ms = Math.min(ms, left);
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
    return true;
  }
}
