import { formatCount, formatTime } from '../../admin/format.js';
import type { LimiterInfo, LimiterStatus } from '../../model/limiter.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';

const USAGE = `Usage: tidemark limiters [--json]
       tidemark limiters <name> [--key KEY] [--json]

The rate limiters (tm.defineLimiter): each one's limit, period and burst, the seconds between
two tokens, its buckets in use and the jobs it holds back. With a name, one bucket now: its
tokens, when the next one comes, when it is full, and the jobs waiting for it (--key picks
the bucket of a limiter a queue names with a key).

Options:
${DATABASE_HELP}
  --key KEY             the bucket's key (default: the bucket without a key)
  --json                print one JSON document instead of a table`;

export const limitersCommand: Command = {
  name: 'limiters',
  summary: 'rate limiters: limits, buckets in use, jobs held back; one bucket now',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, key: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    const tm = await openForCommand(values, io);
    try {
      const [name] = positionals;
      if (name !== undefined) {
        const status = await tm.limiterStatus(name, { key: values.key });
        io.stdout.write(values.json ? `${JSON.stringify(status, null, 2)}\n` : bucket(status));
        return 0;
      }
      const limiters = await tm.listLimiters();
      io.stdout.write(
        values.json
          ? `${JSON.stringify({ schema: tm.schema, limiters }, null, 2)}\n`
          : listing(tm.schema, limiters),
      );
      return 0;
    } finally {
      await tm.close();
    }
  },
};

function listing(schema: string, limiters: LimiterInfo[]): string {
  if (limiters.length === 0) return `No limiter is defined in schema ${schema}.\n`;
  return `${renderTable(
    ['limiter', 'limit', 'period (s)', 'burst', 'token every (s)', 'busy buckets', 'jobs held'],
    limiters.map((l) => [
      l.name,
      formatCount(l.limit),
      String(l.periodSeconds),
      formatCount(l.burst),
      String(Number(l.spacingSeconds.toFixed(4))),
      formatCount(l.busyBuckets),
      formatCount(l.waiting),
    ]),
  )}\n`;
}

function bucket(status: LimiterStatus): string {
  const label = status.key === '' ? status.name : `${status.name} [${status.key}]`;
  return `${renderTable(
    ['bucket', 'tokens', 'capacity', 'next token', 'full at', 'jobs held'],
    [
      [
        label,
        formatCount(status.tokens),
        formatCount(status.capacity),
        status.nextTokenAt ? formatTime(status.nextTokenAt) : 'full',
        status.fullAt ? formatTime(status.fullAt) : 'now',
        formatCount(status.waiting),
      ],
    ],
  )}\n`;
}
