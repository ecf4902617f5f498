import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed callback-token URLs: `<base>/<id>?exp=<unix seconds>&sig=<mac>`, with `&d=<payload>`
 * (base64url JSON) when the URL carries its payload. The MAC is HMAC-SHA256 under the first
 * key over the version, the id, the expiry and the payload's digest, so none can be changed
 * alone; any listed key verifies (rotation).
 */

/** The parts of a token URL after the base. */
export interface TokenLink {
  id: string;
  /** Unix seconds. */
  exp: number;
  /** The payload as base64url JSON, or null when the URL carries none. */
  d: string | null;
  sig: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isTokenId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

function mac(key: string, id: string, exp: number, d: string | null): Buffer {
  const digest = d === null ? '-' : createHash('sha256').update(d).digest('base64url');
  return createHmac('sha256', key).update(`tidemark-token-v1\n${id}\n${exp}\n${digest}`).digest();
}

/** The query of a signed URL for token `id`, expiring at `expiresAt`, carrying `payloadText` when given. */
export function signTokenLink(key: string, id: string, expiresAt: Date, payloadText: string | null): string {
  const exp = Math.ceil(expiresAt.getTime() / 1000);
  const d = payloadText === null ? null : Buffer.from(payloadText, 'utf8').toString('base64url');
  const query = new URLSearchParams({ exp: String(exp) });
  if (d !== null) query.set('d', d);
  query.set('sig', mac(key, id, exp, d).toString('base64url'));
  return `${id}?${query}`;
}

/** The link's parts from its id and query, or null when one is missing or malformed. */
export function readTokenLink(id: string, query: URLSearchParams): TokenLink | null {
  const exp = query.get('exp');
  const sig = query.get('sig');
  const d = query.get('d');
  if (!isTokenId(id) || exp === null || !/^\d{1,12}$/.test(exp) || sig === null || !/^[\w-]{43}$/.test(sig)) {
    return null;
  }
  if (d !== null && !/^[\w-]*$/.test(d)) return null;
  return { id, exp: Number(exp), d, sig };
}

/** True when some key signed this link (compared in constant time). */
export function verifyTokenLink(keys: readonly string[], link: TokenLink): boolean {
  const given = Buffer.from(link.sig, 'base64url');
  let ok = false;
  for (const key of keys) {
    const expected = mac(key, link.id, link.exp, link.d);
    // Every key is tried, so the time taken does not say which one matched.
    if (expected.length === given.length && timingSafeEqual(expected, given)) ok = true;
  }
  return ok;
}

/** The payload a link carries, parsed; undefined when it carries none or it is not JSON. */
export function linkPayload(link: TokenLink): { value: unknown } | undefined {
  if (link.d === null) return undefined;
  try {
    return { value: JSON.parse(Buffer.from(link.d, 'base64url').toString('utf8')) };
  } catch {
    return undefined;
  }
}
