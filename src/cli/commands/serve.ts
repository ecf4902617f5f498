import { apiServerOptions } from '../../options/api-options.js';
import { API_TOKENS_ENV, apiTokensFrom } from '../api-tokens.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { portOption, wholeNumberOption } from '../whole-number-option.js';

const USAGE = `Usage: tidemark serve --api [--port N] [--host ADDR] [--max-body-bytes N]
                     [--database URL|PATH] [--schema NAME]

Serves the HTTP API (under /api/v1, its OpenAPI document at /api/v1/openapi.json) until
Ctrl-C. It binds 127.0.0.1 unless --host says otherwise. Every call needs a bearer token with
its scope; the tokens come from env ${API_TOKENS_ENV}, JSON such as
  {"ci":{"secret":"…16+ characters…","scopes":["enqueue:emails","read"]}}
To serve the API beside the dashboard instead: tidemark dashboard --api.

Options:
  --api                 serve the HTTP API (the one thing serve serves today)
  --port N              port (default 4322; 0 picks a free one)
  --host ADDR           address to bind (default 127.0.0.1)
  --max-body-bytes N    largest request body (default 1048576)
${DATABASE_HELP}`;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the HTTP API',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: {
        ...DATABASE_OPTIONS,
        api: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'max-body-bytes': { type: 'string' },
      },
      strict: true,
    });
    if (values.api !== true) throw new UsageError('say what to serve: tidemark serve --api');
    const port = portOption(values.port);
    // The API's options check its range.
    const maxBodyBytes = wholeNumberOption('--max-body-bytes', values['max-body-bytes'], { min: 0 });
    const options = apiServerOptions.read(
      {
        tokens: apiTokensFrom(io),
        ...(port !== undefined ? { port } : {}),
        ...(values.host !== undefined ? { host: values.host } : {}),
        ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      },
      'options',
    );
    // The options are checked before the database is opened: a bad token costs no connection.
    const tm = await openForCommand(values, io);
    try {
      const { serveApi } = await import('../../http-api/server.js');
      const api = await serveApi(tm, options);
      io.stdout.write(`Tidemark HTTP API at ${api.url}api/v1/ (token required). Ctrl-C to stop.\n`);
      await io.untilInterrupted?.();
      await api.close();
      return 0;
    } finally {
      await tm.close();
    }
  },
};
