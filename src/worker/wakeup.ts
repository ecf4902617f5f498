/**
 * How the claim loop sleeps and what wakes it. Shared by the loop and the slots: a freed
 * slot or a written outcome wakes a loop that waits for room, and a NOTIFY nudges it.
 */
export class Wakeup {
  /** A nudge came since the loop last claimed: claim again before sleeping. */
  nudged = false;
  /** The loop waits (with no timer) until the slots have room for a claim. */
  waitingForRoom = false;
  private wakeLoop: (() => void) | null = null;

  /** End the loop's current sleep, if it sleeps. */
  wake(): void {
    this.wakeLoop?.();
  }

  nudge(): void {
    this.nudged = true;
    this.wakeLoop?.();
  }

  /** Wait for a nudge, a freed slot after a full claim, or the timeout (null: no timeout). */
  sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? null : setTimeout(() => done(), ms);
      const done = () => {
        if (timer) clearTimeout(timer);
        this.wakeLoop = null;
        resolve();
      };
      this.wakeLoop = done;
    });
  }
}
