import { InvalidOptionError } from '../errors.js';
import { isStorableText } from './check.js';

/** The largest JSON payload (data, output, signal payload) accepted, in bytes of JSON text. */
export const MAX_PAYLOAD_BYTES = 1_048_576;

const TEXT = 'strings without NUL characters or unpaired surrogates (jsonb refuses them)';

/**
 * JSON text of a value that must round-trip through jsonb unchanged. Functions, symbols,
 * BigInt, non-finite numbers, cycles, and strings jsonb cannot hold (NUL, unpaired
 * surrogates) are refused, including what a `toJSON` method returns, as is anything larger
 * than MAX_PAYLOAD_BYTES.
 */
export function toJsonText(value: unknown, field: string, maxBytes = MAX_PAYLOAD_BYTES): string {
  checkJsonValue(value === undefined ? null : value, field, new Set(), true);
  let text: string | undefined;
  try {
    text = JSON.stringify(value === undefined ? null : value);
  } catch (error) {
    // A getter or toJSON that throws, or one that behaves differently on a second call.
    throw Object.assign(new InvalidOptionError(field, 'JSON data', value), { cause: error });
  }
  if (text === undefined) throw new InvalidOptionError(field, 'JSON data (toJSON returned nothing)', value);
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new InvalidOptionError(
      field,
      `JSON of at most ${maxBytes} bytes`,
      `${Buffer.byteLength(text, 'utf8')} bytes`,
    );
  }
  return text;
}

function checkJsonValue(value: unknown, path: string, seen: Set<object>, callToJson: boolean): void {
  switch (typeof value) {
    case 'string':
      if (!isStorableText(value)) throw new InvalidOptionError(path, TEXT, value);
      return;
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
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (callToJson && typeof toJSON === 'function') {
    // JSON.stringify calls toJSON once and serialises what it returns: check that instead.
    checkJsonValue(toJSON.call(object, ''), path, seen, false);
    return;
  }
  if (seen.has(object)) throw new InvalidOptionError(path, 'JSON data without cycles', '[cycle]');
  seen.add(object);
  if (Array.isArray(object)) {
    object.forEach((item, index) => {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        throw new InvalidOptionError(`${path}[${index}]`, 'a JSON value', item);
      }
      checkJsonValue(item, `${path}[${index}]`, seen, true);
    });
  } else {
    for (const [key, item] of Object.entries(object)) {
      if (!isStorableText(key)) throw new InvalidOptionError(path, `keys that are ${TEXT}`, key);
      if (typeof item === 'function' || typeof item === 'symbol') {
        throw new InvalidOptionError(`${path}.${key}`, 'a JSON value', item);
      }
      checkJsonValue(item, `${path}.${key}`, seen, true);
    }
  }
  seen.delete(object);
}
