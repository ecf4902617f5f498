import { UsageError } from './cli-io.js';

/** An option's JSON text read as a value; a UsageError naming the option when it is not JSON. */
export function jsonOption(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--${name} must be JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
