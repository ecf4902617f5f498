import { formatCount, formatTime, formatWindow, relativeTime } from '../../admin/format.js';
import { type LiveSweeps, loadWorkers } from '../../admin/workers.js';
import { engineOf } from '../../engine-handle.js';
import type { WorkerSweepSetting } from '../../model/worker.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';

const USAGE = `Usage: tidemark workers [--database URL|PATH] [--schema NAME] [--json]

The workers registered in the database: host, pid, queues, jobs running, concurrency, start,
last beat, and whether each is live or gone (no beat for three of its beat intervals), with
the sweeps each one runs. A stopped worker deletes its row; the maintenance tick deletes the
row of a gone worker an hour later.

Options:
${DATABASE_HELP}
  --json                print one JSON document instead of a table`;

export const workersCommand: Command = {
  name: 'workers',
  summary: 'registered workers: live or gone, running jobs, sweeps',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, json: { type: 'boolean' } },
      strict: true,
    });
    const tm = await openForCommand(values, io);
    try {
      const { workers, live, gone, sweeps } = await loadWorkers(engineOf(tm));
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ schema: tm.schema, live, gone, workers }, null, 2)}\n`);
        return 0;
      }
      if (workers.length === 0) {
        io.stdout.write(`No worker is registered in schema ${tm.schema}.\n`);
        return 0;
      }
      const now = Date.now();
      io.stdout.write(
        `${renderTable(
          [
            'worker',
            'host',
            'pid',
            'queues',
            'running',
            'concurrency',
            'started',
            'last beat',
            'state',
            'retention sweep',
          ],
          workers.map((w) => [
            w.id,
            w.host,
            String(w.pid),
            w.queues ? w.queues.join(',') : '(all)',
            formatCount(w.running),
            formatCount(w.concurrency),
            formatTime(w.startedAt),
            relativeTime(w.heartbeatAt, now),
            w.gone ? 'gone' : 'live',
            sweepText(w.settings.sweep),
          ]),
        )}\n\n${formatCount(live)} live, ${formatCount(gone)} gone. ${sweepSummary(sweeps)}${shownNote(workers.length, live + gone)}\n`,
      );
      return 0;
    } finally {
      await tm.close();
    }
  },
};

function sweepText(sweep: WorkerSweepSetting | false): string {
  return sweep
    ? `every ${formatWindow(sweep.intervalSeconds)}, batch ${formatCount(sweep.batchSize)}`
    : 'off';
}

/** Said when the listing's cap left rows out (gone ones: live workers are listed first). */
function shownNote(shown: number, total: number): string {
  return shown < total ? ` Showing ${formatCount(shown)} of ${formatCount(total)}, live workers first.` : '';
}

function sweepSummary(sweeps: LiveSweeps): string {
  if (sweeps.sweepers === 0) return 'No live worker sweeps.';
  return `${sweeps.sweepers} of ${sweeps.live} live workers sweep every ${sweeps.intervals.map((s) => formatWindow(s)).join(' or ')}.`;
}
