import { formatCount, formatTime } from '../../admin/format.js';
import type { KeyInfo } from '../../model/keys.js';
import { LIST_KEYS_DEFAULT_LIMIT } from '../../queues/key-settings.js';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';

const USAGE = `Usage: tidemark keys <queue> [--blocked] [--limit N] [--after KEY] [--json]
       tidemark keys <queue> --pause KEY | --resume KEY
       tidemark keys <queue> --set-limit KEY=N | --clear-limit KEY

A queue's concurrency keys (flow control): each key's tier, jobs running and pending, its
limit, whether it is paused, and its oldest pending run time, in key order. With an action,
pause or resume one key, or set or drop its persisted limit; every worker sees it at its
next claim.

Options:
${DATABASE_HELP}
  --blocked             only keys whose pending jobs cannot start now (paused, or at their limit)
  --limit N             at most N keys (1 to 1000, default 100)
  --after KEY           start after this key (the last one of the previous page)
  --pause KEY           stop the key's jobs from starting; running ones finish
  --resume KEY          let a paused key's jobs start again
  --set-limit KEY=N     run at most N of the key's jobs at once, replacing the queue's rule
  --clear-limit KEY     go back to the queue's rule for the key
  --json                print one JSON document instead of a table
${ACTOR_HELP}`;

export const keysCommand: Command = {
  name: 'keys',
  summary: "a queue's concurrency keys: running, pending, limits; pause, resume, set limits",
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: {
        ...DATABASE_OPTIONS,
        ...ACTOR_OPTIONS,
        blocked: { type: 'boolean' },
        limit: { type: 'string' },
        after: { type: 'string' },
        pause: { type: 'string' },
        resume: { type: 'string' },
        'set-limit': { type: 'string' },
        'clear-limit': { type: 'string' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
    const [queue, ...extra] = positionals;
    if (queue === undefined || extra.length > 0)
      throw new UsageError('name one queue: tidemark keys <queue>');
    const actions = ['pause', 'resume', 'set-limit', 'clear-limit'] as const;
    const chosen = actions.filter((name) => values[name] !== undefined);
    if (chosen.length > 1) throw new UsageError(`one action at a time, not --${chosen.join(' and --')}`);
    const setLimit = values['set-limit'] === undefined ? undefined : parseSetLimit(values['set-limit']);
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    const tm = await openForCommand(values, io);
    const by = cliActor(values, io);
    try {
      if (values.pause !== undefined) {
        await tm.pauseKey(queue, values.pause, by);
        io.stdout.write(`Paused key ${values.pause} of queue ${queue}.\n`);
      } else if (values.resume !== undefined) {
        await tm.resumeKey(queue, values.resume, by);
        io.stdout.write(`Resumed key ${values.resume} of queue ${queue}.\n`);
      } else if (setLimit !== undefined) {
        await tm.setKeyLimit(queue, setLimit.key, { concurrency: setLimit.limit }, by);
        io.stdout.write(`Key ${setLimit.key} of queue ${queue} runs at most ${setLimit.limit} at once.\n`);
      } else if (values['clear-limit'] !== undefined) {
        await tm.setKeyLimit(queue, values['clear-limit'], null, by);
        io.stdout.write(`Key ${values['clear-limit']} of queue ${queue} follows the queue's rule again.\n`);
      } else {
        const keys = await tm.listKeys(queue, { blocked: values.blocked, limit, after: values.after });
        const full = keys.length === (limit ?? LIST_KEYS_DEFAULT_LIMIT);
        io.stdout.write(
          values.json ? `${JSON.stringify({ queue, keys }, null, 2)}\n` : listing(queue, keys, full),
        );
      }
      return 0;
    } finally {
      await tm.close();
    }
  },
};

function parseSetLimit(text: string): { key: string; limit: number } {
  const at = text.lastIndexOf('=');
  const limit = Number(text.slice(at + 1));
  if (at <= 0 || !Number.isInteger(limit)) throw new UsageError(`--set-limit takes KEY=N, got '${text}'`);
  return { key: text.slice(0, at), limit };
}

/** The table, with the next page's flag when this page is full. */
function listing(queue: string, keys: KeyInfo[], full: boolean): string {
  if (keys.length === 0) return `Queue ${queue} has no key with unfinished jobs or settings.\n`;
  const table = renderTable(
    ['key', 'tier', 'running', 'pending', 'limit', 'paused', 'oldest pending'],
    keys.map((k) => [
      k.key,
      k.tier ?? '',
      formatCount(k.active),
      formatCount(k.pending),
      k.limit === null ? 'none' : formatCount(k.limit),
      k.paused ? 'paused' : '',
      formatTime(k.oldestPendingAt),
    ]),
  );
  const last = keys.at(-1)?.key ?? '';
  return full ? `${table}\n\nNext page: --after ${JSON.stringify(last)}\n` : `${table}\n`;
}
