import type { IncomingMessage } from 'node:http';
import { isObject, propertyOf } from '../model/guards.js';

const MAX_FORM_BYTES = 64 * 1024;

/**
 * The posted form. Accepts a body a framework already parsed (Express's `urlencoded()`
 * leaves it on `req.body`), else reads the stream, up to 64 kB.
 */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams | 'too-large' | 'unsupported'> {
  const parsed = propertyOf(req, 'body');
  if (isObject(parsed) && !Buffer.isBuffer(parsed)) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(parsed)) {
      for (const item of Array.isArray(value) ? value : [value]) form.append(key, String(item));
    }
    return form;
  }
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return 'unsupported';
  if (typeof parsed === 'string') return new URLSearchParams(parsed);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
