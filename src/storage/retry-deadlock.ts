import { DatabaseConflictError } from '../errors.js';
import { sqlState } from './database-errors.js';

/** SQLSTATE of a statement PostgreSQL aborted to break a deadlock. */
const DEADLOCK_DETECTED = '40P01';

/**
 * Run a single statement again when PostgreSQL aborted it to break a deadlock. Tree
 * operations (cancel, retry) lock a job and its descendants, while a finishing child locks its
 * own row and then its parent's (to wake it), so the two lock orders can meet. The statement
 * is atomic (its NOTIFYs roll back with it), so running it again is safe.
 */
export async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || sqlState(error) !== DEADLOCK_DETECTED) throw error;
      // A short random pause lets the surviving transaction finish first.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}

/** SQLSTATE of a transaction PostgreSQL aborted for a serialization conflict. */
const SERIALIZATION_FAILURE = '40001';

/**
 * Run a whole transaction again, a bounded number of times, when PostgreSQL aborted it to
 * break a deadlock or for a serialization conflict: it rolled back, so running it again
 * is safe. Past the last attempt the conflict is a DatabaseConflictError (its `cause` the
 * database's error), never the raw one.
 */
export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = sqlState(error);
      if (code !== DEADLOCK_DETECTED && code !== SERIALIZATION_FAILURE) throw error;
      if (attempt >= attempts) throw new DatabaseConflictError(String(code), attempts, error);
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}
