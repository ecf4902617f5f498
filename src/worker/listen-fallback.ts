/** The poll of a worker whose notifications are lost, unless its own poll is shorter. */
export const LOST_LISTEN_POLL_SECONDS = 0.25;

/** What a worker polls at: its own interval, or the fallback's when notifications are lost. */
export function pollSecondsFor(delivers: boolean, pollIntervalSeconds: number): number {
  return delivers ? pollIntervalSeconds : Math.min(LOST_LISTEN_POLL_SECONDS, pollIntervalSeconds);
}

/** Said once per engine when the self-notification probe never arrived. */
export const LOST_LISTEN_WARNING =
  'LISTEN does not work on this connection: a notification sent through the pool never reached ' +
  'the listening connection (a pooler in transaction mode, such as PgBouncer, drops them), so ' +
  'workers would wake only on their poll. They now poll faster instead. To wake on notifications, ' +
  'set the listenDatabase option to a direct connection string (not through the pooler), or use ' +
  'session pooling; with transaction pooling also set preparedStatements: false.';
