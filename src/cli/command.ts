import type { CliIo } from './cli-io.js';

/** A `tidemark` subcommand. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}
