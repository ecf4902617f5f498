import type { Tidemark } from '../tidemark.js';
import type { CliIo } from './cli-io.js';

/**
 * A --queue that names no queue in this schema matches nothing: say so on stderr (a typo
 * otherwise reads as "0 jobs"), with the names that do exist.
 */
export async function warnIfUnknownQueue(tm: Tidemark, queue: string | undefined, io: CliIo): Promise<void> {
  if (queue === undefined) return;
  const names = (await tm.listQueues()).map((q) => q.name);
  if (names.includes(queue)) return;
  const known =
    names.length === 0
      ? 'there are none'
      : `known: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}`;
  io.stderr.write(`warning: no queue named '${queue}' in schema ${tm.schema} (${known})\n`);
}
