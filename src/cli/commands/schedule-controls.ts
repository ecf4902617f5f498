import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { actionAndName, DATABASE_HELP, DATABASE_OPTIONS, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const ACTIONS = ['pause', 'resume', 'trigger'] as const;

const USAGE = `Usage: tidemark schedule pause|resume|trigger NAME [--database URL|PATH] [--schema NAME]

  pause     the schedule fires nothing until resumed
  resume    it fires again from its next slot; the slots it missed while paused are not fired
  trigger   fire it once now, paused or not, recorded as a fire (a schedule of unique jobs
            does not fire while its job is still in flight)

Options:
${ACTOR_HELP}
${DATABASE_HELP}`;

export const scheduleCommand: Command = {
  name: 'schedule',
  summary: 'pause, resume or fire a cron schedule now',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, ...ACTOR_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
    const [action, name] = actionAndName(positionals, ACTIONS, 'schedule name', USAGE);
    const by = cliActor(values, io);
    return withCommandEngine(values, io, async (tm) => {
      if (action === 'pause') {
        await tm.pauseSchedule(name, by);
        io.stdout.write(`Paused schedule ${name}.\n`);
      } else if (action === 'resume') {
        await tm.resumeSchedule(name, by);
        io.stdout.write(`Resumed schedule ${name}: it fires from its next slot.\n`);
      } else {
        const jobId = await tm.triggerSchedule(name, by);
        io.stdout.write(
          jobId === null
            ? `Schedule ${name} did not fire: its jobs are unique and one is still in flight.\n`
            : `Fired schedule ${name}: job ${jobId}.\n`,
        );
      }
      return 0;
    });
  },
};
