import type { RetentionPolicy } from '../../model/retention-policy.js';
import type { Tidemark } from '../../tidemark.js';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';
import { batchSizeOption } from './batch-size-option.js';

const USAGE = `Usage: tidemark retention <action> [options] [--database URL|PATH] [--schema NAME]

The operator's controls over deletion, for every node of the cluster.

Actions:
  status                 the pause switch and the holds in place
  pause --reason TEXT    stop every sweep and purge, on every node, until resumed
  resume                 let sweeps and purges delete again
  hold (--ids 1,2,… | --queue Q) --reason TEXT
                         keep these jobs (or every job of the queue, now and later), with
                         their trees, through every sweep and purge; prints the hold id
  release HOLD           release a hold; its jobs go by their windows again
  apply --queue Q [--policy JSON | --keep] [--dry-run] [--batch-size N]
                         re-freeze the windows of the queue's jobs already in the database
                         with its stored policy (or the JSON policy given, or keep forever);
                         --dry-run counts the jobs it would change

Options:
${ACTOR_HELP}
${DATABASE_HELP}`;

const OPTIONS = {
  ...DATABASE_OPTIONS,
  ...ACTOR_OPTIONS,
  reason: { type: 'string' },
  ids: { type: 'string' },
  queue: { type: 'string' },
  policy: { type: 'string' },
  keep: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'batch-size': { type: 'string' },
} as const;

type Values = ReturnType<
  typeof parseCommandArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** What an action does once the database is open. */
type Run = (tm: Tidemark, io: CliIo) => Promise<number>;

/** Each action checks its arguments before anything opens, and returns what it runs. */
const ACTIONS: Record<string, (values: Values, positionals: string[]) => Run> = {
  status: () => async (tm, io) => {
    const status = await tm.retentionStatus();
    io.stdout.write(
      status.paused
        ? `Retention is PAUSED cluster-wide since ${status.since?.toISOString()}${status.pausedBy ? ` by ${status.pausedBy}` : ''}: ${status.reason}\nNo sweep deletes anything and purges are refused until 'tidemark retention resume'.\n`
        : 'Retention is running: sweeps delete due rows by their frozen windows.\n',
    );
    const holds = await tm.listHolds();
    io.stdout.write(
      holds.length === 0
        ? 'No holds.\n'
        : `\n${renderTable(
            ['hold', 'reason', 'covers', 'jobs', 'placed'],
            holds.map((h) => [
              h.id,
              h.reason,
              h.queue ? `queue ${h.queue}` : 'named jobs',
              String(h.jobs),
              h.createdAt.toISOString(),
            ]),
          )}\n`,
    );
    return 0;
  },
  pause: (values) => {
    const reason = required(values.reason, '--reason TEXT');
    return async (tm, io) => {
      const status = await tm.pauseRetention({ reason, ...cliActor(values, io) });
      io.stdout.write(
        `Retention paused cluster-wide since ${status.since?.toISOString()}: ${status.reason}\n`,
      );
      return 0;
    };
  },
  resume: (values) => async (tm, io) => {
    const before = await tm.retentionStatus();
    await tm.resumeRetention(cliActor(values, io));
    io.stdout.write(before.paused ? 'Retention resumed.\n' : 'Retention was not paused.\n');
    return 0;
  },
  hold: (values) => {
    const ids = values.ids?.split(/[\s,]+/).filter(Boolean) ?? [];
    if (ids.length === 0 && values.queue === undefined)
      throw new UsageError('hold needs --ids 1,2,… or --queue Q');
    const reason = required(values.reason, '--reason TEXT');
    return async (tm, io) => {
      const { holdId, jobs } = await tm.holdJobs({
        ...(ids.length > 0 ? { ids } : {}),
        ...(values.queue !== undefined ? { queue: values.queue } : {}),
        reason,
        ...cliActor(values, io),
      });
      io.stdout.write(
        `Hold ${holdId} keeps ${jobs} jobs and their trees. Release it with 'tidemark retention release ${holdId}'.\n`,
      );
      return 0;
    };
  },
  release: (values, positionals) => {
    if (positionals.length !== 1) throw new UsageError('release needs one hold id');
    const [holdId] = positionals;
    return async (tm, io) => {
      await tm.releaseHold(holdId, cliActor(values, io));
      io.stdout.write(`Hold ${holdId} released.\n`);
      return 0;
    };
  },
  apply: (values) => {
    const queue = required(values.queue, '--queue Q');
    if (values.policy !== undefined && values.keep) throw new UsageError('give --policy or --keep, not both');
    const policy = values.keep ? false : values.policy === undefined ? undefined : parsePolicy(values.policy);
    const batchSize = batchSizeOption(values['batch-size']);
    return async (tm, io) => {
      const result = await tm.applyRetention({
        queue,
        ...(policy === undefined ? {} : { policy }),
        ...(batchSize === undefined ? {} : { batchSize }),
        dryRun: values['dry-run'] === true,
        ...cliActor(values, io),
      });
      const windows = JSON.stringify(result.retention);
      io.stdout.write(
        result.dryRun
          ? `Dry run: ${result.jobs} jobs of queue ${queue} would be re-frozen with ${windows}. Nothing was changed.\n`
          : `Re-froze ${result.jobs} jobs of queue ${queue} with ${windows}.\n`,
      );
      return 0;
    };
  },
};

export const retentionCommand: Command = {
  name: 'retention',
  summary: 'pause or resume all deletion, hold jobs, apply a policy to history',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const [name, ...rest] = positionals;
    const action = name === undefined ? undefined : ACTIONS[name];
    if (!action) {
      throw new UsageError(
        `${name === undefined ? 'an action is required' : `unknown action '${name}'`} (${Object.keys(ACTIONS).join(', ')})\n\n${USAGE}`,
      );
    }
    const run = action(values, rest);
    const tm = await openForCommand(values, io);
    try {
      return await run(tm, io);
    } finally {
      await tm.close();
    }
  },
};

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

function parsePolicy(text: string): RetentionPolicy {
  try {
    return JSON.parse(text) as RetentionPolicy;
  } catch {
    throw new UsageError(
      `--policy must be a JSON retention policy, such as '{"completed":604800}'; got '${text}'`,
    );
  }
}
