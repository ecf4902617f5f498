import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './cli-io.js';

/**
 * Node's `parseArgs`, strict, where an option given twice is a usage error rather than the
 * last one winning silently (`--queue a --queue b` would act on b alone); options declared
 * `multiple` may repeat.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const { tokens } = parseArgs({ ...config, tokens: true });
  const seen = new Set<string>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name) && config.options?.[token.name]?.multiple !== true) {
      throw new UsageError(`--${token.name} was given more than once; give it once`);
    }
    seen.add(token.name);
  }
  return parseArgs(config);
}
