import type { EngineCore } from '../engine-core.js';
import type { JobLogs } from '../model/notes.js';
import { integer } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { idBoundField } from '../options/shared-fields.js';

export const DEFAULT_LOG_PAGE = 100;
export const MAX_LOG_PAGE = 1000;

/** `tm.getJobLogs`'s options, declared once. */
export const jobLogsOptions = new OptionSet('options', {
  after: idBoundField({
    what: 'a log line id',
    docDefault: 'from the first line',
    description: "only lines after this one (a page's `next`)",
  }),
  limit: integer(1, MAX_LOG_PAGE, { default: DEFAULT_LOG_PAGE, description: 'lines per page' }),
});

/** Options of `tm.getJobLogs`. */
export type JobLogsOptions = OptionsOf<typeof jobLogsOptions.properties>;

/** A page of a job's log lines, oldest first; null when there is no such job. */
export async function getJobLogs(
  core: EngineCore,
  jobId: string,
  input: JobLogsOptions | undefined,
): Promise<JobLogs | null> {
  const options = jobLogsOptions.read(input ?? {}, 'options');
  const after = options.after ?? '0';
  const [dropped, rows] = await Promise.all([
    core.storage.notes.logLinesDropped(jobId),
    core.storage.notes.jobLogs(jobId, after, options.limit + 1),
  ]);
  if (dropped === null) return null;
  const page = rows.slice(0, options.limit);
  return {
    lines: page.map((row) => ({
      id: row.id,
      attempt: row.attempt,
      level: row.level,
      message: row.message,
      attrs: row.attrs ?? null,
      at: new Date(row.logged_at),
    })),
    dropped,
    next: rows.length > options.limit ? page[page.length - 1].id : null,
  };
}
