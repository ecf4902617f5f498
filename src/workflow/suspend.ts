/** What a suspended workflow waits for, as the job's `wait` column stores it. */
export type Wait =
  | { kind: 'sleep'; name: string }
  | { kind: 'signal'; names: string[]; count: number; key: string }
  | { kind: 'child'; childId: string; key: string }
  | { kind: 'token'; name: string; tokenId: string; key: string };

/**
 * Thrown inside a handler to unwind it when a workflow must wait (sleep, signal, child).
 * The executor catches it and parks the job in `waiting`. Never exported to users.
 */
export class Suspension extends Error {
  constructor(
    readonly wait: Wait,
    readonly wakeAt: Date | null,
  ) {
    super('workflow suspended: do not catch this error in a handler');
    this.name = 'Suspension';
  }
}

/** The attempt no longer owns its job (cancelled or reclaimed): stop without writing. */
export class LostOwnership extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId} is no longer owned by this attempt (cancelled or reclaimed)`);
    this.name = 'LostOwnership';
  }
}
