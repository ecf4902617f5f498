import type { Runner } from './runner.js';

/**
 * The runner behind each Storage, for tests that set up or inspect rows directly. Not part
 * of the door: nothing under src/ outside storage/ may import this module.
 */
const runners = new WeakMap<object, Runner>();

export function registerRunner(storage: object, db: Runner): void {
  runners.set(storage, db);
}

/** The runner of a Storage: its driver, schema and `run(query, params)`. */
export function runnerOf(storage: object): Runner {
  const db = runners.get(storage);
  if (db === undefined) throw new TypeError('runnerOf: not a Storage');
  return db;
}
