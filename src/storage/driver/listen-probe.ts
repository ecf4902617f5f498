import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/** How long a probe waits for its own notification: far above a direct round trip (milliseconds). */
export const LISTEN_PROBE_MS = 2_000;

/**
 * Whether a NOTIFY sent with `notify` (through the pool, as every statement of Tidemark is)
 * reaches the listening `client` within `timeoutMs`. A pooler in transaction mode (PgBouncer)
 * runs the LISTEN on whichever server connection the client had for that one statement, then
 * hands that connection to others: what it hears later is dropped, so the probe never arrives.
 * Null when the probe itself failed (a lost connection): the reconnect probes again.
 */
export async function probeDelivery(
  client: pg.Client,
  notify: (channel: string, payload: string) => Promise<unknown>,
  timeoutMs: number = LISTEN_PROBE_MS,
): Promise<boolean | null> {
  const channel = `tidemark_probe_${randomBytes(6).toString('hex')}`;
  const payload = randomBytes(8).toString('hex');
  let onNotification: (message: pg.Notification) => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  const arrived = new Promise<boolean>((resolve) => {
    onNotification = (message) => {
      if (message.channel === channel && message.payload === payload) resolve(true);
    };
    client.on('notification', onNotification);
  });
  try {
    await client.query(`listen "${channel}"`);
    await notify(channel, payload);
    const elapsed = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    return await Promise.race([arrived, elapsed]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    client.off('notification', onNotification);
    await client.query(`unlisten "${channel}"`).catch(() => {});
  }
}
