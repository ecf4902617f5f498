import { isRecord } from '../model/guards.js';
import { isStorableText } from './check.js';

/** A UTF-16 surrogate without its other half. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text PostgreSQL's text and jsonb accept, for what Tidemark records rather than validates (a
 * handler's error, say): NUL and each unpaired surrogate become U+FFFD, the replacement
 * character, as a UTF-8 decoder shows bytes it cannot read. Storable text is returned as it is.
 */
export function toStorableText(text: string): string {
  return isStorableText(text)
    ? text
    : text.replaceAll('\u0000', '\ufffd').replace(UNPAIRED_SURROGATE, '\ufffd');
}

/**
 * A JSON.stringify replacer that makes every string and key storable (see toStorableText).
 * JSON.stringify writes NUL and lone surrogates as `\u` escapes, which jsonb refuses as well.
 */
export function storableJsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return toStorableText(value);
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  if (keys.every(isStorableText)) return value;
  const out: Record<string, unknown> = {};
  for (const key of keys) out[toStorableText(key)] = value[key];
  return out;
}
