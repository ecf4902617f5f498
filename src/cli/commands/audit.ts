import { formatTime } from '../../admin/format.js';
import type { AuditRecord, AuditTarget } from '../../model/audit.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';

const USAGE = `Usage: tidemark audit [--since ISO] [--until ISO] [--actor NAME] [--action ACTION]
                     [--limit N] [--after ID] [--json] [--database URL|PATH] [--schema NAME]

Lists the recorded operator actions (retry, cancel, delete, purge, hold, pause, resume,
run-now, schedule and key controls, signals from the dashboard or the CLI), newest first:
when, who, from where, what, and how many rows each changed. Through tm.listAudit; a bad
date, or --since after --until, exits 1 naming the option.

Options:
  --since ISO           only actions at or after this time (ISO 8601)
  --until ISO           only actions before this time
  --actor NAME          only this actor
  --action ACTION       only this action (such as cancel, bulk-retry, purge, pause-queue)
  --limit N             at most N rows, 1 to 500 (default 50)
  --after ID            the rows older than this one (the last id of the page before)
  --json                print one JSON document instead of a table
${DATABASE_HELP}`;

export const auditCommand: Command = {
  name: 'audit',
  summary: 'recorded operator actions: who did what, when, from where',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: {
        ...DATABASE_OPTIONS,
        since: { type: 'string' },
        until: { type: 'string' },
        actor: { type: 'string' },
        action: { type: 'string' },
        limit: { type: 'string' },
        after: { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
    });
    return withCommandEngine(values, io, async (tm) => {
      const rows = await tm.listAudit({
        ...(values.since !== undefined ? { since: values.since } : {}),
        ...(values.until !== undefined ? { until: values.until } : {}),
        ...(values.actor !== undefined ? { actor: values.actor } : {}),
        ...(values.action !== undefined ? { action: values.action as AuditRecord['action'] } : {}),
        ...(values.limit !== undefined ? { limit: Number(values.limit) } : {}),
        ...(values.after !== undefined ? { after: values.after } : {}),
      });
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ schema: tm.schema, actions: rows }, null, 2)}\n`);
        return 0;
      }
      if (rows.length === 0) {
        io.stdout.write('No recorded action matches.\n');
        return 0;
      }
      io.stdout.write(
        `${renderTable(
          ['id', 'when', 'actor', 'from', 'action', 'target', 'rows'],
          rows.map((r) => [
            r.id,
            formatTime(r.at),
            r.actor,
            r.source,
            r.action,
            targetText(r.target),
            String(r.rows),
          ]),
        )}\n`,
      );
      return 0;
    });
  },
};

function targetText(t: AuditTarget): string {
  const parts: string[] = [];
  if (t.jobId) parts.push(`job ${t.jobId}`);
  if (t.queue) parts.push(`queue ${t.queue}`);
  if (t.schedule) parts.push(`schedule ${t.schedule}`);
  if (t.key) parts.push(`key ${t.key}`);
  if (t.holdId) parts.push(`hold ${t.holdId}`);
  if (t.detail) parts.push(t.detail);
  // The table keeps to a line; --json prints the whole filter (a hold may name a thousand ids).
  if (t.filter) {
    const text = JSON.stringify(t.filter);
    parts.push(text.length > 120 ? `${text.slice(0, 120)}…` : text);
  }
  return parts.join(', ') || '-';
}
