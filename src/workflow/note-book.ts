import { InvalidOptionError } from '../errors.js';
import type { Clock } from '../model/clock.js';
import { isObject } from '../model/guards.js';
import type { Job } from '../model/job.js';
import {
  type JobLog,
  type JobLogLevel,
  type JobMetadata,
  NOTE_LIMITS,
  type Progress,
} from '../model/notes.js';
import { toJsonText } from '../options/json.js';
import type { JobNotes, LogLine } from '../storage/storage.js';

/** Where a note book asks to be written: its worker's notes writer. */
export interface NotesSink {
  /** The book has notes to write: write them within a second. */
  mark(book: NoteBook): void;
}

/**
 * What one attempt says of its job, waiting to be written: the latest progress, the whole
 * metadata when it changed, and the log lines since the last write. Every call is checked
 * before it changes anything; a bad one throws InvalidOptionError naming what was wrong.
 */
export class NoteBook {
  readonly log: JobLog;
  readonly metadata: JobMetadata;
  /** The write that holds this book's last notes, while it runs. */
  inFlight: Promise<void> | null = null;
  private progressText: string | undefined;
  private metadataText: string | undefined;
  private values: Record<string, unknown>;
  private lines: LogLine[] = [];
  private dropped = 0;

  constructor(
    private readonly job: Job,
    private readonly token: string,
    private readonly sink: NotesSink,
    private readonly clock: Clock,
  ) {
    this.values = { ...job.metadata };
    const line = (level: JobLogLevel) => (message: string, attrs?: Record<string, unknown>) =>
      this.addLine(level, message, attrs);
    this.log = { info: line('info'), warn: line('warn'), error: line('error') };
    this.metadata = {
      set: (key, value) => this.setMetadata(key, value),
      get: (key) => (Object.hasOwn(this.values, key) ? this.values[key] : undefined),
      all: () => JSON.parse(JSON.stringify(this.values)),
    };
  }

  /** `ctx.progress`: a number from 0 to 100, or a JSON object of at most 4 KiB. */
  progress(value: Progress): void {
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || value < 0 || value > 100) {
        throw new InvalidOptionError('progress', 'a number from 0 to 100, or a JSON object', value);
      }
      this.progressText = String(value);
    } else if (isObject(value) && !Array.isArray(value)) {
      this.progressText = toJsonText(value, 'progress', NOTE_LIMITS.progressBytes);
    } else {
      throw new InvalidOptionError('progress', 'a number from 0 to 100, or a JSON object', value);
    }
    this.sink.mark(this);
  }

  /** Whether anything waits to be written. */
  get pending(): boolean {
    return (
      this.progressText !== undefined ||
      this.metadataText !== undefined ||
      this.lines.length > 0 ||
      this.dropped > 0
    );
  }

  /** Take what waits to be written; the book is empty after. */
  take(): JobNotes {
    const notes: JobNotes = {
      id: this.job.id,
      token: this.token,
      attempt: this.job.attempts,
      progressText: this.progressText,
      metadataText: this.metadataText,
      logs: this.lines,
      dropped: this.dropped,
    };
    this.progressText = undefined;
    this.metadataText = undefined;
    this.lines = [];
    this.dropped = 0;
    return notes;
  }

  /** A write of `notes` failed: keep them for the next one, behind nothing newer. */
  giveBack(notes: JobNotes): void {
    this.progressText ??= notes.progressText;
    this.metadataText ??= notes.metadataText;
    const room = NOTE_LIMITS.logLines - this.lines.length;
    const kept = notes.logs.slice(0, Math.max(0, room));
    this.lines = [...kept, ...this.lines];
    this.dropped += notes.dropped + notes.logs.length - kept.length;
    this.sink.mark(this);
  }

  private setMetadata(key: string, value: unknown): void {
    if (typeof key !== 'string' || key.length === 0 || key.length > NOTE_LIMITS.metadataKeyLength) {
      throw new InvalidOptionError(
        'metadata.key',
        `a string of 1 to ${NOTE_LIMITS.metadataKeyLength} characters`,
        key,
      );
    }
    const next = { ...this.values };
    if (value === undefined) delete next[key];
    else next[key] = JSON.parse(toJsonText(value, `metadata.${key}`));
    const text = JSON.stringify(next);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > NOTE_LIMITS.metadataBytes) {
      throw new InvalidOptionError(
        'metadata',
        `at most ${NOTE_LIMITS.metadataBytes} bytes of JSON in all`,
        `${bytes} bytes with '${key}'`,
      );
    }
    this.values = next;
    this.metadataText = text;
    this.sink.mark(this);
  }

  private addLine(level: JobLogLevel, message: string, attrs: Record<string, unknown> | undefined): void {
    if (typeof message !== 'string') throw new InvalidOptionError('log.message', 'a string', message);
    let attrsText: string | undefined;
    if (attrs !== undefined) {
      if (!isObject(attrs) || Array.isArray(attrs)) {
        throw new InvalidOptionError('log.attrs', 'a JSON object', attrs);
      }
      attrsText = toJsonText(attrs, 'log.attrs', NOTE_LIMITS.logAttrsBytes);
    }
    // A handler that logs in a loop between writes holds no more than a job can keep.
    if (this.lines.length >= NOTE_LIMITS.logLines) this.dropped++;
    else this.lines.push({ level, message, attrsText, at: new Date(this.clock.now()) });
    this.sink.mark(this);
  }
}
