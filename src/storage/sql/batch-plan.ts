import { defineQuery } from './define-query.js';

/**
 * The first statement of every transaction that deletes in batches (the sweep, its archive
 * path, the manual purge): it takes the retention gate (see gate.ts) and sets how the
 * planner plans the rest of the transaction.
 *
 * - The gate first: the control row locked FOR SHARE before the batch statement takes its
 *   snapshot, so that snapshot sees every hold and pause committed before, and none can
 *   commit until the batch does. The batch's own freshness check then always passes, however
 *   fast holds are being placed: a batch never has to run again because of them.
 * - Plans that do not depend on statistics: a backlog that lands at once (an import, a
 *   policy applied to history) is swept before anything has analysed the table, and then
 *   the planner, guessing a handful of due rows, read the whole due range and sorted it in
 *   every batch. Ordered index walks only (no sequential or bitmap scan, no sort: they stay
 *   possible where nothing else is, at a high cost), so each batch reads its keyset range
 *   from the index and stops at its limit. JIT is off because those costs would cross its
 *   threshold and compile a statement that runs in milliseconds.
 * - A statement timeout for the rest of the transaction (@timeout_ms; 0 for none): a batch the
 *   database cancels for running too long is kept whole, and the caller runs a smaller one.
 */
export const openDeletionBatch = defineQuery<{ timeout_ms: number }, { locked: number }>(
  'openDeletionBatch',
  /* sql */ `
  with gate as materialized (select id from /*schema*/retention_control where id = 1 for share)
  select (select count(*) from gate)::int as locked,
         set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
         set_config('enable_sort', 'off', true), set_config('jit', 'off', true),
         set_config('statement_timeout', (@timeout_ms::int)::text, true)`,
);
