import type { Queryable } from './driver/driver.js';
import type { Runner } from './runner.js';

let savepoints = 0;

/**
 * Run `fn` all or nothing: in a transaction of its own, or, inside a caller's transaction
 * (`on`), behind a savepoint, so a failure undoes what `fn` wrote and leaves the caller's
 * transaction usable.
 */
export async function atomically<T>(
  db: Runner,
  fn: (tx: Queryable) => Promise<T>,
  on?: Queryable,
): Promise<T> {
  if (!on) return db.driver.transaction(fn);
  // A name of its own per call, so a concurrent call on the same transaction cannot release it.
  const savepoint = `tidemark_atomic_${++savepoints}`;
  await on.query(`savepoint ${savepoint}`);
  let result: T;
  try {
    result = await fn(on);
  } catch (error) {
    await on.query(`rollback to savepoint ${savepoint}`).catch(() => {});
    throw error;
  }
  await on.query(`release savepoint ${savepoint}`);
  return result;
}
