import type { IncomingMessage } from 'node:http';
import { ApiRefusal } from './problem.js';

/** How much of a refused body is still read and dropped, so the client sees the 413 rather than a reset. */
const DISCARD_FACTOR = 4;

/**
 * The request's JSON body, read to at most `maxBytes`: 415 unless it is sent as JSON, 413 past
 * the limit (told by Content-Length before any of it is read, or counted as it comes), 400
 * when it does not parse. A refusal is thrown before any engine call, so nothing is written.
 * An empty body reads as `undefined`.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(req, maxBytes);
  const body = await readUpTo(req, maxBytes);
  if (body === null) throw tooLarge(req, maxBytes);
  if (body.length === 0) return undefined;
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new ApiRefusal(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the body as JSON (Content-Type: application/json), not '${type || 'none'}'.`,
    );
  }
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiRefusal(400, 'MALFORMED_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The body, or null once it passes `maxBytes`. Read by events rather than an async iterator:
 * leaving an iterator destroys the stream, and the client would see a reset, not the 413.
 */
function readUpTo(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.off('end', onEnd);
      resolve(null);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });
}

/**
 * The 413, after which the connection closes. The rest of the body is read and dropped up to
 * a bound (a socket closed on unread data is reset, and the client would lose the answer),
 * and the socket is cut past it.
 */
function tooLarge(req: IncomingMessage, maxBytes: number): ApiRefusal {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > maxBytes * DISCARD_FACTOR) req.socket.destroy();
  });
  req.resume();
  return new ApiRefusal(
    413,
    'BODY_TOO_LARGE',
    `The body is over the limit of ${maxBytes} bytes: nothing was read into the queue.`,
    { connection: 'close' },
  );
}
