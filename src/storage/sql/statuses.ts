import { FINISHED_STATUSES, IN_FLIGHT_STATUSES } from '../../job-status.js';

/** A status list as SQL text: `('pending', 'active', …)`, from the one list in job-status.ts. */
function listOf(statuses: readonly string[]): string {
  return `(${statuses.map((status) => `'${status}'`).join(', ')})`;
}

/** `status in ${IN_FLIGHT}`: jobs that may still run (R1). The unique-key index uses this predicate. */
export const IN_FLIGHT = listOf(IN_FLIGHT_STATUSES);

/** `status in ${FINISHED}`: terminal jobs. */
export const FINISHED = listOf(FINISHED_STATUSES);
