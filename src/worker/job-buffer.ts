import type { ClaimedJob } from '../storage/storage.js';

/**
 * Claimed jobs waiting for a free slot, first in first out. Taking from the front moves a
 * head index instead of copying the array: a buffer of hundreds of jobs is taken from one
 * job at a time, and copying it each time was a visible share of a no-op job's allocations.
 */
export class JobBuffer {
  private items: ClaimedJob[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(job: ClaimedJob): void {
    this.items.push(job);
  }

  /** The oldest job, or undefined when empty. */
  shift(): ClaimedJob | undefined {
    if (this.head >= this.items.length) return undefined;
    const job = this.items[this.head];
    this.items[this.head++] = undefined as unknown as ClaimedJob;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return job;
  }

  /** Remove and return the job claimed under this lock token, if held. */
  take(token: string): ClaimedJob | undefined {
    for (let i = this.head; i < this.items.length; i++) {
      if (this.items[i].token === token) return this.items.splice(i, 1)[0];
    }
    return undefined;
  }

  /** Remove and return every held job. */
  drain(): ClaimedJob[] {
    const all = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return all;
  }

  /** The held jobs, oldest first (a copy). */
  toArray(): ClaimedJob[] {
    return this.items.slice(this.head);
  }
}
