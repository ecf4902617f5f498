import { countJobsExactly } from '../../admin/exact-counts.js';
import { formatBytes, formatCount, formatSeconds } from '../../admin/format.js';
import { loadOverview, type QueueOverview } from '../../admin/overview.js';
import { COUNT_CAP, formatStatusCount, type StatusCount } from '../../admin/status-count.js';
import { loadStorageStats } from '../../admin/storage-stats.js';
import { engineOf } from '../../engine-handle.js';
import { ALL_STATUSES } from '../../job-status.js';
import type { Tidemark } from '../../tidemark.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';

const USAGE = `Usage: tidemark stats [--database URL|PATH] [--schema NAME] [--exact] [--json]

Jobs per queue and status, the jobs ready to run (due now) and scheduled (due later), the
queue's latency (how long its oldest ready job has been due), and the size of each table
(with live and dead rows).
Counts are exact up to ${formatCount(COUNT_CAP)} per cell, as on the dashboard's queues page.
Above that a cell shows ${formatCount(COUNT_CAP)}+, or an estimate from the planner's
statistics (≈) when they give one above ${formatCount(COUNT_CAP)}, so that stats never scans
a large table; --exact counts every row instead.

Options:
${DATABASE_HELP}
  --exact               count exactly (scans the jobs table)
  --json                print one JSON document instead of tables`;

export const statsCommand: Command = {
  name: 'stats',
  summary: 'counts per queue and status, table sizes',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, exact: { type: 'boolean' }, json: { type: 'boolean' } },
      strict: true,
    });
    const tm = await openForCommand(values, io);
    try {
      const [queues, storage] = await Promise.all([
        counts(tm, values.exact === true),
        loadStorageStats(engineOf(tm)),
      ]);
      if (values.json) {
        io.stdout.write(
          `${JSON.stringify(
            {
              schema: tm.schema,
              queues,
              tables: storage.tables.map((t) => ({
                name: t.name,
                totalBytes: Number(t.total_bytes),
                liveRows: t.live_rows === null ? null : Number(t.live_rows),
                deadRows: t.dead_rows === null ? null : Number(t.dead_rows),
              })),
            },
            null,
            2,
          )}\n`,
        );
        return 0;
      }
      const statuses = ALL_STATUSES.filter((s) => queues.some((q) => q.counts[s]));
      const cell = (c: StatusCount | undefined) => (c ? formatStatusCount(c) : '0');
      io.stdout.write(
        queues.length === 0
          ? `No queues in schema ${tm.schema}.\n`
          : `${renderTable(
              ['queue', ...statuses, 'ready', 'scheduled', 'latency', 'queue paused'],
              queues.map((q) => [
                q.name,
                ...statuses.map((s) => cell(q.counts[s])),
                cell(q.ready),
                cell(q.scheduled),
                q.latencySeconds === null ? '-' : formatSeconds(q.latencySeconds),
                q.paused ? 'yes' : '',
              ]),
            )}\n`,
      );
      io.stdout.write(
        `\n${renderTable(
          ['table', 'total', 'indexes', 'live rows', 'dead rows'],
          storage.tables.map((t) => [
            t.name,
            formatBytes(Number(t.total_bytes)),
            formatBytes(Number(t.index_bytes)),
            formatCount(t.live_rows),
            formatCount(t.dead_rows),
          ]),
        )}\n`,
      );
      if (tm.driverKind === 'pglite') {
        io.stdout.write(
          '(embedded PGlite keeps no row statistics across processes: live/dead rows count from this open)\n',
        );
      }
      return 0;
    } finally {
      await tm.close();
    }
  },
};

/** A queue's line: its counts per status, ready and scheduled jobs (bounded, as on the queues page) and latency. */
type QueueCounts = Pick<QueueOverview, 'name' | 'paused' | 'ready' | 'scheduled' | 'latencySeconds'> & {
  counts: Partial<Record<string, StatusCount>>;
};

async function counts(tm: Tidemark, exact: boolean): Promise<QueueCounts[]> {
  const overview = await loadOverview(engineOf(tm));
  const line = ({ name, paused, ready, scheduled, latencySeconds, counts }: QueueCounts) => ({
    name,
    paused,
    counts,
    ready,
    scheduled,
    latencySeconds,
  });
  if (!exact) return overview.queues.map(line);
  const rows = await countJobsExactly(engineOf(tm));
  return overview.queues.map((q) => ({
    ...line(q),
    counts: Object.fromEntries(
      rows
        .filter((r) => r.queue === q.name)
        .map((r): [string, StatusCount] => [r.status, { n: r.n, exact: true, kind: 'exact' }]),
    ),
  }));
}
