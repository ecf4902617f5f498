import { InvalidOptionError } from '../errors.js';
import { isStorableText } from './check.js';
import { objectShapeProblem, settle } from './json-object.js';

/** The largest JSON payload (data, output, signal payload) accepted, in bytes of JSON text. */
export const MAX_PAYLOAD_BYTES = 1_048_576;

/**
 * The deepest nesting of arrays and objects accepted in a JSON payload. jsonb's parser runs out
 * of stack far deeper (past about 6,000 levels on PGlite and 14,000 on PostgreSQL with its
 * default `max_stack_depth`), so a payload accepted here is one the database can read.
 */
export const MAX_JSON_DEPTH = 200;

const TEXT = 'strings without NUL characters or unpaired surrogates (jsonb refuses them)';
const NOT_JSON = 'JSON data (no functions, symbols or BigInt)';

/**
 * JSON text of a value that must round-trip through jsonb unchanged. Functions, symbols,
 * BigInt, non-finite numbers, Maps, Sets and class instances without `toJSON`, cycles, nesting deeper than MAX_JSON_DEPTH, and strings jsonb
 * cannot hold (NUL, unpaired surrogates) are refused, including what a `toJSON` method
 * returns, as is anything larger than MAX_PAYLOAD_BYTES. A getter, Proxy trap or `toJSON`
 * that throws is refused too, naming where (`data.a.b[3]`), with its error as `cause`.
 */
export function toJsonText(value: unknown, field: string, maxBytes = MAX_PAYLOAD_BYTES): string {
  // The copy is plain data, read once: what was checked is exactly what is written, and
  // serialising it runs no code of the caller's and cannot throw.
  const root = value === undefined ? null : value;
  const text = JSON.stringify(
    typeof root === 'object' && root !== null
      ? plainCopy(root, field, maxBytes)
      : checkedPrimitive(root, field),
  );
  if (text === undefined)
    throw new InvalidOptionError(field, 'JSON data (toJSON returned nothing)', undefined);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes)
    throw new InvalidOptionError(field, `JSON of at most ${maxBytes} bytes`, `${bytes} bytes`);
  return text;
}

/** Where a value sits in the payload; made into a path such as `data.a.b[3]` for an error only. */
interface Place {
  parent: Place | null;
  key: string | number;
  /** The array or object found there, once read. */
  value?: object;
}

/** An array or object of the copy, written by index or key. */
type Container = Record<string | number, unknown>;

/** A value still to copy into `into[slot]`, found `depth` containers down. */
interface Pending {
  value: unknown;
  place: Place;
  depth: number;
  into: Container;
  slot: string | number;
  /** Bytes of its key in the text (`"key":`), counted once the value is known to be written. */
  keyBytes: number;
}

/**
 * A plain copy of `root` (arrays, plain objects and primitives) holding what
 * JSON.stringify would write, checked on the way. It walks an explicit stack, so no nesting
 * can overflow the call stack, and it reads every getter, Proxy trap and `toJSON` once,
 * inside its guard.
 */
function plainCopy(root: unknown, field: string, maxBytes: number): unknown {
  const top: Container = {};
  const rootPlace: Place = { parent: null, key: field };
  const stack: Pending[] = [
    { value: root, place: rootPlace, depth: 0, into: top, slot: 'root', keyBytes: 0 },
  ];
  // A lower bound of the text's length: a value far too large (or a graph sharing objects,
  // whose text grows exponentially with its depth) is refused before it is all read.
  let bytes = 0;
  // What a thrown error is reported against.
  let reading = rootPlace;
  let readingKey: string | number | undefined;
  const count = (n: number) => {
    bytes += n;
    if (bytes <= maxBytes) return;
    // A cycle wide enough can fill the budget before it nests too deep: name it as a cycle.
    const cycle = cycleIn(reading);
    if (cycle) refuse(cycle, 'JSON data without cycles', '[cycle]');
    refuse(rootPlace, `JSON of at most ${maxBytes} bytes`, `more than ${maxBytes} bytes`);
  };
  try {
    while (stack.length > 0) {
      const step = stack.pop() as Pending;
      const { place, into, slot } = step;
      reading = place;
      readingKey = undefined;
      const value = settle(step.value, place.parent === null ? '' : String(place.key));
      if (value === undefined) {
        // What toJSON gave nothing for: left out of an object, null in an array.
        if (Array.isArray(into)) into[slot] = null;
        else delete into[slot];
        continue;
      }
      if (typeof value !== 'object' || value === null) {
        const problem = primitiveProblem(value);
        if (problem) refuse(place, problem, value);
        put(into, slot, value);
        count(step.keyBytes + primitiveBytes(value));
        continue;
      }
      const shape = objectShapeProblem(value);
      if (shape) refuse(place, shape.expected, shape.got);
      place.value = value;
      const depth = step.depth + 1;
      // A cycle nests without end, so it is looked for only once the nesting is too deep.
      if (depth > MAX_JSON_DEPTH) {
        const cycle = cycleIn(place);
        if (cycle) refuse(cycle, 'JSON data without cycles', '[cycle]');
        refuse(place, `JSON nested at most ${MAX_JSON_DEPTH} levels deep`, 'deeper nesting');
      }
      if (Array.isArray(value)) {
        const length = toLength(value.length);
        count(step.keyBytes + 2 + Math.max(length - 1, 0));
        const copy: unknown[] = new Array(length);
        put(into, slot, copy);
        for (let i = 0; i < length; i++) {
          readingKey = i;
          // A hole is written as null, as JSON.stringify does.
          const item = i in value ? value[i] : null;
          if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
            refuse(place, 'a JSON value', item, i);
          }
          if (typeof item === 'object' && item !== null) {
            copy[i] = null;
            stack.push({
              value: item,
              place: { parent: place, key: i },
              depth,
              into: copy as unknown as Container,
              slot: i,
              keyBytes: 0,
            });
            continue;
          }
          const problem = primitiveProblem(item);
          if (problem) refuse(place, problem, item, i);
          copy[i] = item;
          count(primitiveBytes(item));
        }
      } else {
        const keys = Object.keys(value);
        count(step.keyBytes + 2 + Math.max(keys.length - 1, 0));
        const copy: Record<string, unknown> = {};
        put(into, slot, copy);
        for (const key of keys) {
          if (!isStorableText(key)) refuse(place, `keys that are ${TEXT}`, key);
          readingKey = key;
          const item = (value as Record<string, unknown>)[key];
          if (item === undefined) continue;
          if (typeof item === 'function' || typeof item === 'symbol')
            refuse(place, 'a JSON value', item, key);
          const keyBytes = key.length + 3;
          if (typeof item === 'object' && item !== null) {
            // Set now, so the key keeps its place in the object's order.
            put(copy, key, null);
            stack.push({
              value: item,
              place: { parent: place, key },
              depth,
              into: copy,
              slot: key,
              keyBytes,
            });
            continue;
          }
          const problem = primitiveProblem(item);
          if (problem) refuse(place, problem, item, key);
          put(copy, key, item);
          count(keyBytes + primitiveBytes(item));
        }
      }
    }
  } catch (error) {
    if (isRefusal(error)) throw error;
    throw Object.assign(
      new InvalidOptionError(
        pathOf(reading, readingKey),
        'JSON data that can be read (a getter, Proxy trap or toJSON threw)',
        thrownText(error),
      ),
      { cause: error },
    );
  }
  return top.root;
}

/**
 * This module's own refusals, told apart from what a caller's code throws by identity alone:
 * anything else (instanceof, reading a property) could run the caller's code again.
 */
const refusals = new WeakSet<object>();

function refuse(place: Place, expected: string, got: unknown, key?: string | number): never {
  const refusal = new InvalidOptionError(pathOf(place, key), expected, got);
  refusals.add(refusal);
  throw refusal;
}

function isRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && refusals.has(error);
}

function checkedPrimitive(value: unknown, field: string): unknown {
  const problem = primitiveProblem(value);
  if (problem) throw new InvalidOptionError(field, problem, value);
  return value;
}

/** Why a primitive cannot be stored as it is, or null when it can. */
function primitiveProblem(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return isStorableText(value) ? null : TEXT;
    case 'number':
      return Number.isFinite(value) ? null : 'a finite number';
    case 'boolean':
      return null;
    default:
      return value === null ? null : NOT_JSON;
  }
}

/** A lower bound of the bytes the primitive takes in JSON text (escapes and multi-byte characters add more). */
function primitiveBytes(value: unknown): number {
  return typeof value === 'string' ? value.length + 2 : 1;
}

/** `into[slot] = value`, where a `__proto__` key is an entry like any other, not the prototype. */
function put(into: Container, slot: string | number, value: unknown): void {
  if (slot === '__proto__') {
    Object.defineProperty(into, slot, { value, writable: true, enumerable: true, configurable: true });
  } else {
    into[slot] = value;
  }
}

/** The first place, from the top, holding an array or object that also holds it. */
function cycleIn(place: Place): Place | null {
  const chain: Place[] = [];
  for (let at: Place | null = place; at !== null; at = at.parent) chain.push(at);
  const above = new Set<object>();
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = chain[i].value;
    if (value === undefined) continue;
    if (above.has(value)) return chain[i];
    above.add(value);
  }
  return null;
}

/** The path of `place`, or of its entry `key`: `data.a.b[3]`. */
function pathOf(place: Place, key?: string | number): string {
  const parts: string[] = key === undefined ? [] : [pathStep(key)];
  for (let at: Place | null = place; at !== null; at = at.parent) {
    parts.push(at.parent === null ? String(at.key) : pathStep(at.key));
  }
  return parts.reverse().join('');
}

function pathStep(key: string | number): string {
  return typeof key === 'number' ? `[${key}]` : `.${key}`;
}

/** An array's length as JSON.stringify reads it (ToLength): a whole number from 0. */
function toLength(length: unknown): number {
  const n = Math.trunc(Number(length));
  return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
}

/** A thrown value in a few words, without trusting it (it may be a Proxy itself). */
function thrownText(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return typeof error === 'string' ? error : typeof error;
  } catch {
    return 'an error';
  }
}
