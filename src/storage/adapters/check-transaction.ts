import { InvalidOptionError } from '../../errors.js';
import { hasProperties } from '../../model/guards.js';

/**
 * The adapter's argument as an object with the members named, else InvalidOptionError naming
 * `tx` and what was expected: a wrong value (the library's root client rather than a
 * transaction, which would run each statement on its own) is refused before any SQL runs.
 */
export function checkTransaction(
  tx: unknown,
  expected: string,
  isTransaction: (value: Record<string, unknown>) => boolean,
): Record<string, unknown> {
  if (!hasProperties(tx) || !isTransaction(tx)) throw new InvalidOptionError('tx', expected, tx);
  return tx;
}
