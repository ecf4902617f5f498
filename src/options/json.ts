import { InvalidOptionError } from '../errors.js';

/** The largest JSON payload (data, output, signal payload) accepted, in bytes of JSON text. */
export const MAX_PAYLOAD_BYTES = 1_048_576;

/**
 * JSON text of a value that must round-trip through jsonb unchanged. Functions, symbols,
 * BigInt, non-finite numbers and cycles are refused (JSON.stringify would silently drop or
 * throw on them), as is anything larger than MAX_PAYLOAD_BYTES.
 */
export function toJsonText(value: unknown, field: string, maxBytes = MAX_PAYLOAD_BYTES): string {
  checkJsonValue(value === undefined ? null : value, field, new Set());
  const text = JSON.stringify(value === undefined ? null : value);
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new InvalidOptionError(
      field,
      `JSON of at most ${maxBytes} bytes`,
      `${Buffer.byteLength(text, 'utf8')} bytes`,
    );
  }
  if (text.includes('\\u0000'))
    throw new InvalidOptionError(field, 'JSON without NUL characters (jsonb refuses \\u0000)');
  return text;
}

function checkJsonValue(value: unknown, path: string, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidOptionError(path, 'a finite number', value);
      return;
    case 'undefined':
      return;
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new InvalidOptionError(path, 'JSON data (no functions, symbols or BigInt)', value);
  }
  if (value === null) return;
  const object = value as object;
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return;
  if (seen.has(object)) throw new InvalidOptionError(path, 'JSON data without cycles', '[cycle]');
  seen.add(object);
  if (Array.isArray(object)) {
    object.forEach((item, index) => {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        throw new InvalidOptionError(`${path}[${index}]`, 'a JSON value', item);
      }
      checkJsonValue(item, `${path}[${index}]`, seen);
    });
  } else {
    for (const [key, item] of Object.entries(object)) {
      if (typeof item === 'function' || typeof item === 'symbol') {
        throw new InvalidOptionError(`${path}.${key}`, 'a JSON value', item);
      }
      checkJsonValue(item, `${path}.${key}`, seen);
    }
  }
  seen.delete(object);
}
