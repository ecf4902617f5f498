import { CALLS } from './0019-sql-enqueue/calls.js';
import { CHECKS } from './0019-sql-enqueue/checks.js';
import { RESOLVE } from './0019-sql-enqueue/resolve.js';
import { WRITE } from './0019-sql-enqueue/write.js';

/**
 * Adding jobs from SQL: `add_job(queue, data, options)` and `add_jobs(jobs)`, callable from any
 * client, function or trigger, inside the caller's transaction (docs/sql-enqueue.md).
 *
 * They take `tm.addJob`'s options under its names and write the row `tm.addJob` writes: the
 * same columns, the queue's attempts, retention and version where the job sets none, the same
 * keys for `unique`, `idempotencyKey` and `uniqueFor`, the same folds for `debounce` and
 * `throttle`, and one NOTIFY per queue with work ready now, delivered at commit. A change to
 * what `tm.addJob` writes replaces these functions in a later migration;
 * test/intake/sql-enqueue.test.ts compares the two rows column by column.
 *
 * `queues.engine_retention` is the defining process's engine policy (`Tidemark.open({ retention })`),
 * written with the queue's options: what `tm.addJob` freezes on a job of a queue that sets no
 * policy of its own, which the database otherwise never sees.
 *
 * Errors: SQLSTATE TM001 for an invalid option (the message names the field as `tm.addJob`'s
 * InvalidOptionError does, and so does the error's column field), TM002 for a queue that was
 * never defined. A statement that fails writes nothing, and a rolled-back NOTIFY is not sent.
 *
 * `add_job_*` functions are the two's parts, not for callers.
 */
export const name = 'sql-enqueue';

export const sql = /* sql */ `
alter table /*schema*/queues add column engine_retention jsonb;
${CHECKS}
${RESOLVE}
${WRITE}
${CALLS}
`;
