import { ALL_STATUSES, FINISHED_STATUSES, IN_FLIGHT_STATUSES } from '../../job-status.js';

/** A status list as SQL text: `('pending', 'active', …)`, from the one list in job-status.ts. */
function listOf(statuses: readonly string[]): string {
  return `(${statuses.map((status) => `'${status}'`).join(', ')})`;
}

/** `status in ${IN_FLIGHT}`: jobs that may still run (R1). The unique-key index uses this predicate. */
export const IN_FLIGHT = listOf(IN_FLIGHT_STATUSES);

/** `status in ${FINISHED}`: terminal jobs. */
export const FINISHED = listOf(FINISHED_STATUSES);

/**
 * The first `limit` ids of @queue above `after`, in id order whatever their status: one ordered
 * range of the (queue, status, id) index per status, merged, so a walk follows ids while jobs
 * move between statuses. `after` and `limit` are the statement's parameter references.
 */
export const QUEUE_IDS_AFTER = (after: string, limit: string) => /* sql */ `select id from (
      ${ALL_STATUSES.map(
        (status) => `(select id from /*schema*/jobs
                       where queue = @queue and status = '${status}' and id > ${after}::bigint
                       order by id limit ${limit})`,
      ).join('\n      union all\n      ')}
    ) statuses
    order by id limit ${limit}`;
