/**
 * The options a job takes from its queue when the process adding it did not define the
 * queue (a producer, a scheduler node, a workflow starting a child on another service's
 * queue): read from the `queues` table in the insert statement itself, so a policy the
 * queue's owner changes reaches every producer at once, with no cache to go stale. When
 * the stored queue sets none, the engine's default (@fallback_retention,
 * @default_max_attempts) applies, as for a queue defined here.
 */
export const RETENTION_OF_QUEUE = (given: string, queue: string) => /* sql */ `coalesce(${given},
  (select q.options -> 'retention' from /*schema*/queues q where q.name = ${queue}), @fallback_retention::jsonb)`;

export const MAX_ATTEMPTS_OF_QUEUE = (given: string, queue: string) => /* sql */ `coalesce(${given},
  (select (q.options ->> 'maxAttempts')::int from /*schema*/queues q where q.name = ${queue}), @default_max_attempts::int)`;

/** The parameters the two fragments read. */
export type QueueDefaultParams = {
  fallback_retention: string;
  default_max_attempts: number;
};
