import type { Logger } from '../log/logger.js';
import { NOTE_LIMITS, NOTES_FLUSH_SECONDS } from '../model/notes.js';
import type { Storage } from '../storage/storage.js';
import type { NoteBook, NotesSink } from '../workflow/note-book.js';

const CAPS = { max_lines: NOTE_LIMITS.logLines, max_bytes: NOTE_LIMITS.logBytes };

/**
 * Writes what a worker's running attempts say of their jobs (progress, metadata, log lines):
 * the books marked within a second go in one statement, and an attempt about to write its
 * outcome has its book written first, in one statement with every other book marked
 * meanwhile. A worker whose handlers never call `ctx.progress`, `ctx.metadata` or `ctx.log`
 * never writes here.
 */
export class NotesWriter implements NotesSink {
  private readonly marked = new Set<NoteBook>();
  private timer: NodeJS.Timeout | null = null;
  private soon: Promise<void> | null = null;
  private writing: Promise<void> | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
  ) {}

  mark(book: NoteBook): void {
    this.marked.add(book);
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flushSoon();
    }, NOTES_FLUSH_SECONDS * 1000);
    this.timer.unref();
  }

  /** Write the book's notes before the attempt's outcome: those in flight, then those left. */
  async settle(book: NoteBook): Promise<void> {
    if (book.inFlight !== null) await book.inFlight;
    if (this.marked.has(book)) await this.flushSoon();
  }

  /**
   * Write every marked book now, once (the worker stopping): what the database refuses then is
   * logged and left, as a stopping worker leaves the outcomes it could not write.
   */
  async flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.marked.size > 0) await this.flushSoon();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * The next write, shared by every caller until it starts: it waits for the write in flight,
   * so books marked meanwhile go together (one statement for many finishing attempts), and
   * starts in a later turn of the event loop than the first call.
   */
  private flushSoon(): Promise<void> {
    this.soon ??= this.nextWrite();
    return this.soon;
  }

  private async nextWrite(): Promise<void> {
    if (this.writing !== null) await this.writing;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.soon = null;
    const writing = this.write();
    this.writing = writing;
    await writing;
    if (this.writing === writing) this.writing = null;
  }

  private async write(): Promise<void> {
    const books = [...this.marked].filter((book) => book.pending);
    this.marked.clear();
    if (books.length === 0) return;
    const notes = books.map((book) => book.take());
    const written = this.storage.notes.writeNotes(notes, CAPS).then(
      () => {},
      (error: unknown) => {
        // Kept for the next write; an outcome waits for one try only, never for the database.
        this.logger.warn('could not write job notes (progress, metadata, log); trying again', {
          jobs: books.length,
          error: String(error),
        });
        for (let i = 0; i < books.length; i++) books[i].giveBack(notes[i]);
      },
    );
    for (const book of books) book.inFlight = written;
    await written;
    for (const book of books) if (book.inFlight === written) book.inFlight = null;
  }
}
