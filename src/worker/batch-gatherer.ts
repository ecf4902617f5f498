import type { ClaimedJob } from '../storage/storage.js';

/** Claimed jobs of one queue and batch key, filling a batch. */
interface Group {
  jobs: ClaimedJob[];
  maxSize: number;
  timer: NodeJS.Timeout | null;
}

/**
 * Claimed jobs of queues with `batch`, gathered into batches: a group per queue and batch key
 * fills to `maxSize`, or runs with what it has once its first job has waited its queue's
 * `maxWaitSeconds`. Batches ready to run wait here for a slot, oldest first. Every job held
 * here is claimed: the heartbeat keeps its lock, and a stopping worker gives it back.
 */
export class BatchGatherer {
  private readonly groups = new Map<string, Group>();
  private readonly ready: ClaimedJob[][] = [];
  private held = 0;

  /** @param onReady runs when a batch becomes ready (the slots start it if one is free). */
  constructor(private readonly onReady: () => void) {}

  /** Jobs held: filling and ready. */
  get size(): number {
    return this.held;
  }

  /** Whether a batch waits for a slot. */
  get hasReady(): boolean {
    return this.ready.length > 0;
  }

  /**
   * Add a claimed job to the group of its queue and batch key. A full group is ready at once;
   * a group's first job starts its wait (0: the group is ready once this claim's jobs are in).
   */
  add(job: ClaimedJob, groupKey: string, maxSize: number, waitSeconds: number): void {
    this.held++;
    let group = this.groups.get(groupKey);
    if (group === undefined) {
      group = { jobs: [], maxSize, timer: null };
      this.groups.set(groupKey, group);
      const started = group;
      group.timer = setTimeout(() => this.close(groupKey, started), waitSeconds * 1000);
    }
    group.jobs.push(job);
    if (group.jobs.length >= group.maxSize) this.close(groupKey, group);
  }

  /** The oldest ready batch, taken. */
  nextReady(): ClaimedJob[] | undefined {
    const batch = this.ready.shift();
    if (batch !== undefined) this.held -= batch.length;
    return batch;
  }

  /** Remove and return the job claimed under this lock token, if held (cancelled before its batch ran). */
  take(token: string): ClaimedJob | undefined {
    for (let b = 0; b < this.ready.length; b++) {
      const job = this.takeFrom(this.ready[b], token);
      if (job === undefined) continue;
      // A ready batch left empty is no batch: a slot must never start one.
      if (this.ready[b].length === 0) this.ready.splice(b, 1);
      return job;
    }
    for (const group of this.groups.values()) {
      const job = this.takeFrom(group.jobs, token);
      if (job !== undefined) return job;
    }
    return undefined;
  }

  private takeFrom(jobs: ClaimedJob[], token: string): ClaimedJob | undefined {
    const i = jobs.findIndex((claimed) => claimed.token === token);
    if (i < 0) return undefined;
    this.held--;
    return jobs.splice(i, 1)[0];
  }

  /** Remove and return every held job (a stopping worker gives them back). */
  drain(): ClaimedJob[] {
    const all = this.toArray();
    for (const group of this.groups.values()) if (group.timer) clearTimeout(group.timer);
    this.groups.clear();
    this.ready.length = 0;
    this.held = 0;
    return all;
  }

  /** Every held job (a copy). */
  toArray(): ClaimedJob[] {
    return [...this.ready.flat(), ...[...this.groups.values()].flatMap((group) => group.jobs)];
  }

  /** The group's batch is ready: full, or its wait is over. */
  private close(groupKey: string, group: Group): void {
    if (this.groups.get(groupKey) !== group) return;
    if (group.timer) clearTimeout(group.timer);
    this.groups.delete(groupKey);
    if (group.jobs.length > 0) this.ready.push(group.jobs);
    this.onReady();
  }
}
