import { FINISHED_STATUSES, isFinished } from '../../job-status.js';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { warnIfUnknownQueue } from '../known-queue.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { batchSizeOption } from './batch-size-option.js';

const USAGE = `Usage: tidemark purge --older-than SECONDS [--queue Q] [--status S]... [--dry-run]
                     [--batch-size N] [--database URL|PATH] [--schema NAME]

Deletes finished jobs (with their checkpoints, signals and fires) that finished more than
SECONDS ago, whatever their retention windows. In-flight jobs are never deleted, trees go
whole, and jobs pinned by a live unique lock or kept by a hold stay. Deletes in batches,
each its own transaction, with a progress line. Refused while retention is paused
('tidemark retention status').

Options:
  --older-than SECONDS  only jobs finished at least this long ago (required; 0 = any age)
  --queue Q             only this queue (default all)
  --status S            completed, failed, cancelled or expired; repeat or comma-separate
                        (default all four)
  --dry-run             count what would be deleted; delete nothing
  --batch-size N        trees per delete statement, 1-10000 (default 1000; larger is clamped)
${ACTOR_HELP}
${DATABASE_HELP}`;

export const purgeCommand: Command = {
  name: 'purge',
  summary: 'delete finished jobs older than a cutoff (--dry-run to count)',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: {
        ...DATABASE_OPTIONS,
        ...ACTOR_OPTIONS,
        queue: { type: 'string' },
        status: { type: 'string', multiple: true },
        'older-than': { type: 'string' },
        'dry-run': { type: 'boolean' },
        'batch-size': { type: 'string' },
      },
      strict: true,
    });
    const request = checkRequest(values);
    const tm = await openForCommand(values, io);
    try {
      await warnIfUnknownQueue(tm, request.queue, io);
      const scope = `${request.statuses.join('/')} jobs${request.queue ? ` of queue ${request.queue}` : ''} finished more than ${request.olderThanSeconds} s ago`;
      if (values['dry-run']) {
        const n = await tm.removeJobs({ ...request, dryRun: true });
        io.stdout.write(`Dry run: ${n} ${scope} would be deleted. Nothing was deleted.\n`);
        const status = await tm.retentionStatus();
        if (status.paused) {
          io.stdout.write(`Retention is paused (${status.reason}): the purge itself would be refused.\n`);
        }
        return 0;
      }
      const progress = progressLine(io);
      const n = await tm.removeJobs({ ...request, onProgress: progress.update, ...cliActor(values, io) });
      progress.done();
      io.stdout.write(`Deleted ${n} ${scope}.\n`);
      return 0;
    } finally {
      await tm.close();
    }
  },
};

function checkRequest(values: {
  queue?: string;
  status?: string[];
  'older-than'?: string;
  'batch-size'?: string;
}): { queue?: string; statuses: string[]; olderThanSeconds: number; batchSize?: number } {
  const olderThan = values['older-than'];
  if (olderThan === undefined) {
    throw new UsageError('--older-than SECONDS is required (use --older-than 0 to purge regardless of age)');
  }
  const olderThanSeconds = Number(olderThan);
  if (olderThan.trim() === '' || !Number.isFinite(olderThanSeconds) || olderThanSeconds < 0) {
    throw new UsageError(`--older-than must be a number of seconds (0 or more), got '${olderThan}'`);
  }
  const statuses = (values.status ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const status of statuses) {
    if (!isFinished(status)) {
      throw new UsageError(
        `--status '${status}' is not a finished status (${FINISHED_STATUSES.join(', ')}); in-flight jobs are never purged`,
      );
    }
  }
  const batchSize = batchSizeOption(values['batch-size']);
  return {
    ...(values.queue !== undefined ? { queue: values.queue } : {}),
    statuses: statuses.length > 0 ? statuses : [...FINISHED_STATUSES],
    olderThanSeconds,
    ...(batchSize !== undefined ? { batchSize } : {}),
  };
}

/**
 * "deleted 12000 jobs…" on stderr: rewritten in place on a terminal, else a line at most
 * once a second so logs stay short.
 */
function progressLine(io: CliIo): { update: (n: number) => void; done: () => void } {
  let shown = false;
  let last = Date.now();
  return {
    update(n) {
      if (io.stderr.isTTY) {
        io.stderr.write(`\rdeleted ${n} jobs…`);
        shown = true;
      } else if (Date.now() - last >= 1000) {
        io.stderr.write(`deleted ${n} jobs so far…\n`);
        last = Date.now();
      }
    },
    done() {
      if (shown) io.stderr.write('\n');
    },
  };
}
