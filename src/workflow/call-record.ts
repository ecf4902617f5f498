import { NonDeterminismError, type RecordedCall } from '../errors.js';

/** A recorded call: its place in the run, kind and checkpoint name. */
export interface RecordEntry extends RecordedCall {
  seq: number;
}

/** Where a call landed in the run, once checked against the record. */
export interface Placement {
  /** The call's place (`checkpoints.seq`): what a checkpoint it writes records. */
  seq: number;
  /** For `ctx.patched`: its answer. */
  patched?: boolean;
  /** For `ctx.patched` answering true in new territory: the marker is still to be written. */
  markNew?: boolean;
  /** The call does not match the record. */
  error?: NonDeterminismError;
}

/** A step that threw leaves this kind of checkpoint at its place; a later success replaces it. */
export const FAILED_STEP = 'step-failed';

type Checkpoint = { seq?: number | null; kind: string; name: string };

/**
 * The determinism guard: the calls one run makes, matched with the calls its record holds
 * (checkpoints with a `seq`, the call's place in the run that wrote it).
 *
 * A call finds its record by its checkpoint name, which is unique in a run, so branches of a
 * `Promise.all` replaying in another order than they first ran still meet their own records.
 * The order is checked where it means something: a call whose name is recorded as another kind,
 * a call the record does not have while recorded calls are still to come (an added call), and a
 * call found past a recorded call that no call of the run has made (a removed one) are errors.
 * Calls already made (entered) are never counted as missing, whatever order they are placed in.
 *
 * A step that threw left a failed marker at its place. When it runs again, what follows may
 * rightly differ from the record (the code took another path the first time), so from there on
 * the run is not checked. Patch markers are answers, not calls: `patched` finds its own, a run
 * recorded past the point without it answers false, and markers no call asks for are ignored
 * (a retired patch).
 */
export class CallRecord {
  private readonly calls: RecordedCall[] = [];
  private readonly entered = new Set<string>();
  private readonly placements: Placement[] = [];
  private readonly matched = new Set<string>();
  private readonly answers = new Map<string, boolean>();
  private byName: Map<string, RecordEntry> | null = null;
  /** Recorded calls other than patch markers, in place order. */
  private ordered: RecordEntry[] = [];
  /** Checkpoints written before places existed: not checked, but a patch is not new before them. */
  private unplaced: string[] = [];
  private nextSeq = 1;
  private diverged = false;

  /** Take the call's turn; returns its index, to place it once the record is known. */
  enter(kind: string, name: string): number {
    this.calls.push({ kind, name });
    this.entered.add(name);
    return this.calls.length - 1;
  }

  /** Match every call up to `index` with the record and return where `index` landed. */
  place(index: number, record: Iterable<Checkpoint>): Placement {
    this.load(record);
    for (let i = this.placements.length; i <= index; i++) this.placements.push(this.placeOne(this.calls[i]));
    return this.placements[index];
  }

  /**
   * For a run that ended well: the first recorded call it never made, as an error, or null.
   * Only a run that loaded its record can tell.
   */
  leftOver(): NonDeterminismError | null {
    if (this.byName === null || this.diverged) return null;
    const missing = this.firstUnmade(Number.POSITIVE_INFINITY);
    return missing === null ? null : new NonDeterminismError(missing.seq, missing, null);
  }

  private load(record: Iterable<Checkpoint>): void {
    if (this.byName !== null) return;
    const byName = new Map<string, RecordEntry>();
    for (const { seq, kind, name } of record) {
      if (seq == null) {
        this.unplaced.push(name);
        continue;
      }
      byName.set(name, { seq, kind, name });
      if (seq >= this.nextSeq) this.nextSeq = seq + 1;
    }
    this.byName = byName;
    this.ordered = [...byName.values()].filter((e) => e.kind !== 'patch').sort((a, b) => a.seq - b.seq);
  }

  /** The first recorded call before `seq` that no call of this run has made, or null. */
  private firstUnmade(seq: number): RecordEntry | null {
    for (const entry of this.ordered) {
      if (entry.seq >= seq) return null;
      if (!this.matched.has(entry.name) && !this.entered.has(entry.name)) return entry;
    }
    return null;
  }

  private placeOne(call: RecordedCall): Placement {
    const byName = this.byName as Map<string, RecordEntry>;
    const entry = byName.get(call.name);
    if (call.kind === 'patch') return this.placePatch(call.name, entry);
    if (entry !== undefined) {
      const kind = entry.kind === FAILED_STEP ? 'step' : entry.kind;
      if (kind !== call.kind)
        return { seq: entry.seq, error: new NonDeterminismError(entry.seq, entry, call) };
      const skipped = this.diverged ? null : this.firstUnmade(entry.seq);
      if (skipped !== null)
        return { seq: entry.seq, error: new NonDeterminismError(skipped.seq, skipped, call) };
      this.matched.add(call.name);
      // A step that failed runs again: what follows it may rightly differ from the record.
      if (entry.kind === FAILED_STEP) this.diverged = true;
      return { seq: entry.seq };
    }
    const pending = this.diverged ? null : this.firstUnmade(Number.POSITIVE_INFINITY);
    if (pending !== null)
      return { seq: pending.seq, error: new NonDeterminismError(pending.seq, pending, call) };
    return { seq: this.nextSeq++ };
  }

  /** `patched`: its recorded answer, false on a run recorded past it, else true and recorded. */
  private placePatch(name: string, entry: RecordEntry | undefined): Placement {
    const known = this.answers.get(name);
    // The same patch asked again in one run: the same answer, and no place of its own.
    if (known !== undefined) return { seq: entry?.seq ?? 0, patched: known };
    let placement: Placement;
    if (entry !== undefined) {
      this.matched.add(name);
      placement = { seq: entry.seq, patched: true };
    } else if (this.firstUnmade(Number.POSITIVE_INFINITY) !== null || this.unplacedAhead()) {
      placement = { seq: 0, patched: false };
    } else {
      placement = { seq: this.nextSeq++, patched: true, markNew: true };
    }
    this.answers.set(name, placement.patched === true);
    return placement;
  }

  /** A checkpoint from before places existed that no call of this run has reached yet. */
  private unplacedAhead(): boolean {
    return this.unplaced.some((name) => !this.entered.has(name));
  }
}
