import { retryOnDeadlock } from './retry-deadlock.js';
import type { Runner } from './runner.js';
import { type JobLogRow, jobLogDropped, type LogCaps, listJobLogs, writeJobNotes } from './sql/job-notes.js';

export type { JobLogRow } from './sql/job-notes.js';

/** A log line as a handler wrote it. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  /** The attributes as JSON text, or undefined. */
  attrsText?: string;
  at: Date;
}

/** What one running attempt has to write: any of progress, metadata (whole) and new log lines. */
export interface JobNotes {
  id: string;
  token: string;
  attempt: number;
  /** JSON text; undefined when unchanged. */
  progressText?: string;
  /** JSON text of the whole metadata object; undefined when unchanged. */
  metadataText?: string;
  logs: LogLine[];
  /** Lines refused before they reached the database (the attempt's own buffer was full). */
  dropped: number;
}

/** The lines written and dropped (over the caps) per job; jobs lost meanwhile are absent. */
export type NotesWritten = Map<string, { written: number; dropped: number }>;

/**
 * Write the notes of many attempts in one statement, run again if PostgreSQL breaks a deadlock
 * with another statement that locks several of the same rows (the heartbeat, an outcome batch).
 */
export async function writeNotes(db: Runner, notes: JobNotes[], caps: LogCaps): Promise<NotesWritten> {
  const rows = await retryOnDeadlock(() =>
    db.run(writeJobNotes, { ...caps, channel: db.channel, notes: notesJson(notes) }),
  );
  return new Map(rows.map((row) => [row.id, { written: row.written, dropped: row.dropped }]));
}

/** A job's log lines, oldest first, after the line `after` (a line id; '0' from the start). */
export function jobLogs(db: Runner, jobId: string, after: string, limit: number): Promise<JobLogRow[]> {
  return db.run(listJobLogs, { job_id: jobId, after, limit });
}

/** How many log lines the job's caps refused; null when there is no such job. */
export async function logLinesDropped(db: Runner, jobId: string): Promise<number | null> {
  const [row] = await db.run(jobLogDropped, { job_id: jobId });
  return row === undefined ? null : row.dropped;
}

/** The statement's input, built as text: progress, metadata and attributes are JSON already. */
function notesJson(notes: JobNotes[]): string {
  const entries = notes.map((note) => {
    let text = `{"id":${JSON.stringify(note.id)},"token":${JSON.stringify(note.token)},"attempt":${note.attempt}`;
    if (note.progressText !== undefined) text += `,"progress":${note.progressText}`;
    if (note.metadataText !== undefined) text += `,"metadata":${note.metadataText}`;
    if (note.logs.length > 0) {
      const lines = note.logs.map(
        (line, n) =>
          `{"n":${n},"level":"${line.level}","message":${JSON.stringify(line.message)},"at":"${line.at.toISOString()}"${
            line.attrsText === undefined ? '' : `,"attrs":${line.attrsText}`
          }}`,
      );
      text += `,"logs":[${lines.join(',')}]`;
    }
    if (note.dropped > 0) text += `,"dropped":${note.dropped}`;
    return `${text}}`;
  });
  return `[${entries.join(',')}]`;
}
