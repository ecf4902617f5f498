import { apiTokensFrom } from '../api-tokens.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { portOption } from '../whole-number-option.js';

const USAGE = `Usage: tidemark dashboard [--port N] [--host ADDR] [--token T] [--read-only] [--api]
                         [--database URL|PATH] [--schema NAME]

Serves the web dashboard until Ctrl-C. It binds 127.0.0.1 unless --host says otherwise;
any other address needs a token (16+ characters), which the browser asks for once.
An embedded folder belongs to one process: to watch an application that uses one, serve
the dashboard from that application (tm.dashboard()) instead.

Options:
  --port N              port (default 4321; 0 picks a free one)
  --host ADDR           address to bind (default 127.0.0.1)
  --token T             require this token (env TIDEMARK_DASHBOARD_TOKEN, which keeps it
                        out of the process list)
                        Named tokens, whose actions the audit records under their names,
                        come from env TIDEMARK_DASHBOARD_TOKENS: 'alice=SECRET,ops-bot=SECRET'
  --read-only           show everything, allow no action
  --api                 serve the HTTP API under /api/v1 beside the pages, with the
                        tokens and scopes of env TIDEMARK_API_TOKENS (see tidemark serve)
${DATABASE_HELP}`;

export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: 'serve the web dashboard',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: {
        ...DATABASE_OPTIONS,
        port: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        'read-only': { type: 'boolean' },
        api: { type: 'boolean' },
      },
      strict: true,
    });
    const port = portOption(values.port);
    const token = values.token ?? io.env.TIDEMARK_DASHBOARD_TOKEN;
    const tokens = namedTokens(io.env.TIDEMARK_DASHBOARD_TOKENS);
    const api = values.api === true ? { tokens: apiTokensFrom(io) } : undefined;
    const tm = await openForCommand(values, io);
    try {
      const dashboard = await tm.dashboard({
        ...(port !== undefined ? { port } : {}),
        ...(values.host !== undefined ? { host: values.host } : {}),
        ...(token ? { token } : {}),
        ...(tokens ? { tokens } : {}),
        readOnly: values['read-only'] === true,
        ...(api ? { api } : {}),
      });
      io.stdout.write(
        `Tidemark dashboard at ${dashboard.url}${token || tokens ? ' (token required)' : ''}${values['read-only'] ? ' (read-only)' : ''}${api ? `, its HTTP API at ${dashboard.url}api/v1/` : ''}. Ctrl-C to stop.\n`,
      );
      await io.untilInterrupted?.();
      await dashboard.close();
      return 0;
    } finally {
      await tm.close();
    }
  },
};

/**
 * `TIDEMARK_DASHBOARD_TOKENS`: `name=secret` pairs separated by commas (a secret may hold `=`,
 * not a comma); the dashboard checks each name and secret. Unset or blank: none.
 */
function namedTokens(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const tokens: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    if (at < 1 || name === '')
      throw new UsageError("TIDEMARK_DASHBOARD_TOKENS holds 'name=secret' pairs separated by commas");
    if (name in tokens) throw new UsageError(`TIDEMARK_DASHBOARD_TOKENS names '${name}' twice`);
    tokens[name] = pair.slice(at + 1).trim();
  }
  return tokens;
}
