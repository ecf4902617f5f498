import { userInfo } from 'node:os';
import type { AuditOptions } from '../model/audit.js';
import type { CliIo } from './cli-io.js';

/** `--actor NAME`: the parseArgs option of every command that changes something. */
export const ACTOR_OPTIONS = { actor: { type: 'string' } } as const;

export const ACTOR_HELP = `  --actor NAME          who acts, recorded in the audit (default: the OS user)`;

/**
 * Who a command acts as, for the audit: `--actor`, else the OS user (`os.userInfo()`), else
 * `$USER`, else `cli`; always from the CLI. A bad `--actor` is refused by the call it is given
 * to, naming the field, before anything is written.
 */
export function cliActor(values: { actor?: string }, io: CliIo): AuditOptions {
  return { actor: values.actor ?? osUser(io), source: 'cli' };
}

function osUser(io: CliIo): string {
  try {
    const name = userInfo().username;
    if (name) return name;
  } catch {
    // No user name for this uid (a container's): fall back below.
  }
  return io.env.USER || io.env.USERNAME || 'cli';
}
