import type { IncomingMessage, ServerResponse } from 'node:http';
import { JobNotFoundError } from '../errors.js';
import { send, startEventStream } from '../http/respond.js';
import type { DashboardContext } from './context.js';

/** Streams open at once per dashboard; more are refused (503) rather than held. */
export const MAX_LIVE_STREAMS = 100;

/** A comment line this often keeps proxies and browsers from closing an idle stream. */
const BEAT_MS = 15_000;

/** How many job streams a dashboard has open, bounded by MAX_LIVE_STREAMS. */
export class LiveStreams {
  open = 0;
}

/**
 * A job page's live updates, as server-sent events: `update` with the job's status, attempts,
 * progress and metadata each time they change (tm.subscribe), then `finished` once the job
 * has, or `gone` when it does not exist; the stream ends when the browser leaves.
 */
export async function serveJobEvents(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: DashboardContext,
  id: string,
  streams: LiveStreams,
): Promise<void> {
  if (streams.open >= MAX_LIVE_STREAMS) {
    res.setHeader('retry-after', '30');
    return send(res, 503, 'text/plain; charset=utf-8', 'Too many live pages open; try again later.\n');
  }
  streams.open++;
  const leave = new AbortController();
  const onClose = () => leave.abort();
  res.once('close', onClose);
  // The browser may have left while the request was being authenticated: 'close' came before.
  if (req.destroyed || res.destroyed || req.socket.destroyed) leave.abort();
  startEventStream(res);
  const beat = setInterval(() => res.write(': beat\n\n'), BEAT_MS);
  try {
    for await (const update of ctx.tm.subscribe(id, { signal: leave.signal })) {
      const { status, attempts, progress, metadata } = update;
      res.write(`event: update\ndata: ${JSON.stringify({ status, attempts, progress, metadata })}\n\n`);
    }
    if (!leave.signal.aborted) res.write('event: finished\ndata: {}\n\n');
  } catch (error) {
    if (!(error instanceof JobNotFoundError)) throw error;
    res.write('event: gone\ndata: {}\n\n');
  } finally {
    clearInterval(beat);
    res.off('close', onClose);
    streams.open--;
    res.end();
  }
}
