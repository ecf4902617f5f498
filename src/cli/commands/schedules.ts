import { formatTime } from '../../admin/format.js';
import { loadSchedules, type ScheduleView } from '../../admin/schedules.js';
import { engineOf } from '../../engine-handle.js';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';
import { wholeNumberOption } from '../whole-number-option.js';

const LIST_USAGE = `Usage: tidemark schedules [--fires N] [--json] [--database URL|PATH] [--schema NAME]

Every cron schedule: its expression, time zone and queue, the next fire time, and the
latest fires with the job each created and that job's status. Times are UTC.

Options:
  --fires N             latest fires shown per schedule, 0-100 (default 3)
  --json                print one JSON document instead of a table
${DATABASE_HELP}`;

export const schedulesCommand: Command = {
  name: 'schedules',
  summary: 'list cron schedules with next and latest fires',
  usage: LIST_USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, fires: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
    });
    const fires = wholeNumberOption('--fires', values.fires, { min: 0, max: 100 }) ?? 3;
    const tm = await openForCommand(values, io);
    try {
      const schedules = await loadSchedules(engineOf(tm), fires);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ schema: tm.schema, schedules }, null, 2)}\n`);
      } else if (schedules.length === 0) {
        io.stdout.write(`No schedules in schema ${tm.schema}.\n`);
      } else {
        io.stdout.write(
          `${renderTable(
            ['name', 'cron', 'timezone', 'queue', 'next fire (UTC)', 'latest fires'],
            schedules.map((s) => [s.name, s.cron, s.timezone, s.queue, nextText(s), firesText(s)]),
          )}\n`,
        );
      }
      return 0;
    } finally {
      await tm.close();
    }
  },
};

function nextText(s: ScheduleView): string {
  if (s.paused) return 'paused';
  return s.nextFireAt ? formatTime(s.nextFireAt).replace(' UTC', '') : 'never';
}

function firesText(s: ScheduleView): string {
  if (s.fires.length === 0) return s.lastFireAt ? '-' : 'not fired yet';
  return s.fires.map((f) => `job ${f.jobId} ${f.status ?? 'deleted'}`).join(', ');
}

const UNSCHEDULE_USAGE = `Usage: tidemark unschedule NAME [--database URL|PATH] [--schema NAME]

Removes a cron schedule: it fires no more jobs. The jobs it already created stay.

Options:
${ACTOR_HELP}
${DATABASE_HELP}`;

export const unscheduleCommand: Command = {
  name: 'unschedule',
  summary: 'remove a cron schedule',
  usage: UNSCHEDULE_USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, ...ACTOR_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1) throw new UsageError(`expected one schedule name\n\n${UNSCHEDULE_USAGE}`);
    return withCommandEngine(values, io, async (tm) => {
      await tm.unschedule(positionals[0], cliActor(values, io));
      io.stdout.write(`Removed schedule ${positionals[0]}.\n`);
      return 0;
    });
  },
};
