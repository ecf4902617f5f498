/**
 * The physical reference for a drain on PGlite: the bare loop of bench/subjects/raw-loop.ts
 * (the same claim and finishing statements, on Tidemark's own table in the same database, in
 * batches of BATCH) run on the PGlite a Tidemark opened, with no worker. PGlite runs one
 * statement at a time on this thread, so the claim and the finish take turns, as a worker's do
 * there. What it reaches is the most a drain on this PGlite can, whatever the worker does.
 */
import { engineOf } from '../../dist/engine-handle.js';
import type { Tidemark } from '../../dist/index.js';
import { runnerOf } from '../../dist/storage/storage-internals.js';
import { rawClaimText, rawFinishText } from '../subjects/raw-loop.js';
import { rate } from './stats.js';

/**
 * Rows per claim and per finish: the batches Tidemark's worker reaches on PGlite, where its
 * finishing writes gather up to 1,000 outcomes (src/worker/finish-buffer.ts) and its claims
 * grow to match. At the 250 of the PostgreSQL loop this loop ran about a fifth slower, paying
 * each statement's fixed cost four times as often.
 */
const BATCH = 1_000;

/** Claim and finish every ready job of `queue` (`count` of them) in turns; returns jobs/s. */
export async function rawPgliteDrain(tm: Tidemark, queue: string, count: number): Promise<number> {
  const { driver } = runnerOf(engineOf(tm).storage);
  const claim = rawClaimText(`"${tm.schema}".jobs`);
  const finish = rawFinishText(tm.schema);
  let finished = 0;
  const started = performance.now();
  for (;;) {
    const { rows } = await driver.query<{ id: string; lock_token: string }>(claim, [queue, BATCH]);
    if (rows.length === 0) break;
    await driver.query(finish, [rows.map((row) => row.id), rows.map((row) => row.lock_token)]);
    finished += rows.length;
  }
  const elapsed = performance.now() - started;
  if (finished !== count) throw new Error(`the bare loop finished ${finished} of ${count} jobs`);
  return rate(count, elapsed);
}
