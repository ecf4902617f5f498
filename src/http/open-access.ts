import type { IncomingMessage } from 'node:http';
import { hostOfHeader, isLoopbackAddress, isLoopbackHost } from './loopback.js';

/** Headers a reverse proxy adds to say whom it forwards for. */
const PROXY_HEADERS = new Set([
  'forwarded',
  'via',
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
]);

/**
 * The first proxy header a request carries, or undefined. A proxy on this machine makes every
 * request look local (loopback address, and often a loopback Host too), so a server without
 * a token must not trust a request that says it was forwarded.
 */
export function proxyHeaderOf(req: IncomingMessage): string | undefined {
  // rawHeaders keeps the spelling the client used, for the message.
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const lower = name.toLowerCase();
    if (PROXY_HEADERS.has(lower) || lower.startsWith('x-forwarded-')) return name;
  }
  return undefined;
}

/**
 * Why a server without a token refuses this request, or undefined to serve it: only a request
 * from this machine, naming it as localhost (no DNS rebinding), through no proxy. `surface`
 * names the server in the message ('dashboard': "This Tidemark dashboard has no token").
 */
export function openAccessRefusal(req: IncomingMessage, surface: string): string | undefined {
  const proxy = proxyHeaderOf(req);
  if (proxy !== undefined) {
    return `This Tidemark ${surface} has no token, and this request came through a proxy (it carries ${proxy}). A ${surface} behind a proxy needs a token: start it with one.\n`;
  }
  if (!(isLoopbackHost(hostOfHeader(req.headers.host)) && isLoopbackAddress(req.socket.remoteAddress))) {
    return `This Tidemark ${surface} has no token, so it serves only http://127.0.0.1 or http://localhost on this machine. Start it with a token to reach it from elsewhere.\n`;
  }
  return undefined;
}
