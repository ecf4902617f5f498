import { InvalidOptionError, TransactionClosedError } from '../../errors.js';
import type { Driver, Queryable } from './driver.js';

/**
 * `tm.transaction(fn)`: BEGIN … COMMIT on Tidemark's own database (a pool client on node-postgres,
 * the instance's transaction on PGlite), ROLLBACK when `fn` throws; resolves with `fn`'s value.
 * The `tx` given to `fn` answers only while `fn` runs: afterwards its connection may serve
 * others, so a late statement is refused with `TransactionClosedError` and runs nowhere.
 */
export async function runOwnTransaction<T>(
  driver: Driver,
  fn: (tx: Queryable) => Promise<T> | T,
): Promise<T> {
  checkTransactionCallback(fn);
  return driver.transaction(async (handle) => {
    let open = true;
    const tx: Queryable = {
      query(statement, params) {
        if (!open) return Promise.reject(new TransactionClosedError());
        return handle.query(statement, params);
      },
    };
    try {
      return await fn(tx);
    } finally {
      open = false;
    }
  });
}

/** `tm.transaction`'s argument must be a function: checked before anything is opened or written. */
export function checkTransactionCallback(fn: unknown): void {
  if (typeof fn !== 'function') throw new InvalidOptionError('fn', 'a function (tx) => …', fn);
}
