import { formatTime } from '../../admin/format.js';
import { JobNotFoundError } from '../../errors.js';
import type { JobDetail } from '../../jobs/job-detail.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, jobIdArgument, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const USAGE = `Usage: tidemark job ID [--json] [--database URL|PATH] [--schema NAME]

One job: its status, attempts and times, data and output, error, progress, tags, and how many
checkpoints, signals, children and log lines it has. A job that does not exist exits 1.

Options:
  --json                print the whole detail (tm.getJobDetail) as JSON
${DATABASE_HELP}`;

export const jobCommand: Command = {
  name: 'job',
  summary: "show one job's detail",
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    const id = jobIdArgument(positionals, USAGE);
    return withCommandEngine(values, io, async (tm) => {
      const detail = await tm.getJobDetail(id);
      if (detail === null) throw new JobNotFoundError(id);
      io.stdout.write(values.json ? `${JSON.stringify(detail, null, 2)}\n` : describe(detail));
      return 0;
    });
  },
};

function describe({ job, checkpoints, signals, children, holds, logs, history }: JobDetail): string {
  const time = (date: Date | null) => (date === null ? '-' : formatTime(date));
  const lines = [
    `Job ${job.id} (${job.queue}): ${job.status}, attempt ${job.attempts} of ${job.maxAttempts}`,
    `  created ${time(job.createdAt)}, runs at ${time(job.runAt)}, started ${time(job.startedAt)}, finished ${time(job.finishedAt)}`,
    `  data     ${JSON.stringify(job.data)}`,
    `  output   ${JSON.stringify(job.output)}`,
  ];
  if (job.error) lines.push(`  error    ${job.error.name ?? 'Error'}: ${job.error.message}`);
  if (job.progress !== null) lines.push(`  progress ${JSON.stringify(job.progress)}`);
  if (job.tags.length > 0) lines.push(`  tags     ${job.tags.join(', ')}`);
  if (job.key !== null) lines.push(`  key      ${job.key}`);
  for (const a of history.attempts) {
    const error = a.error ? `: ${a.error.name ?? 'Error'}: ${a.error.message ?? ''}` : '';
    lines.push(
      `  attempt ${a.attempt} ${a.outcome}${error} (${time(a.startedAt)} -> ${time(a.endedAt)}${a.worker ? ` on ${a.worker}` : ''})`,
    );
  }
  lines.push(
    `  ${history.events.length} run history event(s)${history.dropped > 0 ? ` (${history.dropped} more not kept)` : ''}, ${checkpoints.length} checkpoint(s), ${signals.length} signal(s), ${children.length} child job(s), ${logs.lines.length}${logs.next === null ? '' : '+'} log line(s), ${holds.length} hold(s)`,
    `  purge after ${time(job.purgeAfter)}`,
  );
  return `${lines.join('\n')}\n`;
}
