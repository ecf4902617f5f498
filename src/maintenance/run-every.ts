/**
 * A periodic service: run `runOnce` every `intervalSeconds` until stopped. A failing run is
 * reported and the loop goes on at the next interval. `stop()` waits for a run in progress.
 */
export class RunEvery {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly intervalSeconds: number,
    private readonly runOnce: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    /** Seconds before the first run; default a random fraction of the interval so nodes stagger. */
    private readonly firstDelaySeconds = Math.random() * intervalSeconds,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.firstDelaySeconds);
  }

  /** Run now (unless a run is already in progress) and wait for it. */
  async runNow(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.runOnce()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(seconds: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      this.timer = null;
      await this.runNow();
      this.schedule(this.intervalSeconds);
    }, seconds * 1000);
    this.timer.unref();
  }
}
