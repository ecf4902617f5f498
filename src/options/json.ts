import { InvalidOptionError } from '../errors.js';
import { isObject } from '../model/guards.js';
import { isStorableText } from './check.js';
import { objectShapeProblem, settle, toLength } from './json-object.js';
import { cycleIn, type Place, pathOf } from './json-place.js';

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

/** Where a value's copy goes: an index of an array of the copy, or a key of an object of it. */
type Slot =
  | { array: true; into: unknown[]; slot: number }
  | { array: false; into: Record<string, unknown>; slot: string };

/** A value still to copy into its slot, found `depth` containers down. */
type Pending = Slot & {
  value: unknown;
  place: Place;
  depth: number;
  /** Bytes of its key in the text (`"key":`), counted once the value is known to be written. */
  keyBytes: number;
};

/**
 * A plain copy of `root` (arrays, plain objects and primitives) holding what
 * JSON.stringify would write, checked on the way. It walks an explicit stack, so no nesting
 * can overflow the call stack, and it reads every getter, Proxy trap and `toJSON` once,
 * inside its guard.
 */
function plainCopy(root: unknown, field: string, maxBytes: number): unknown {
  return new PlainCopy(root, field, maxBytes).run();
}

/** One walk of plainCopy: the stack of values still to copy, and what has been counted and read. */
class PlainCopy {
  private readonly top: Record<string, unknown> = {};
  private readonly rootPlace: Place;
  private readonly stack: Pending[];
  /**
   * A lower bound of the text's length: a value far too large (or a graph sharing objects,
   * whose text grows exponentially with its depth) is refused before it is all read.
   */
  private bytes = 0;
  /** What a thrown error is reported against. */
  private reading: Place;
  private readingKey: string | number | undefined;

  constructor(
    root: unknown,
    field: string,
    private readonly maxBytes: number,
  ) {
    this.rootPlace = { parent: null, key: field };
    this.reading = this.rootPlace;
    this.stack = [
      {
        value: root,
        place: this.rootPlace,
        depth: 0,
        array: false,
        into: this.top,
        slot: 'root',
        keyBytes: 0,
      },
    ];
  }

  run(): unknown {
    try {
      for (let step = this.stack.pop(); step !== undefined; step = this.stack.pop()) this.copy(step);
    } catch (error) {
      if (isRefusal(error)) throw error;
      throw Object.assign(
        new InvalidOptionError(
          pathOf(this.reading, this.readingKey),
          'JSON data that can be read (a getter, Proxy trap or toJSON threw)',
          thrownText(error),
        ),
        { cause: error },
      );
    }
    return this.top.root;
  }

  /** Copy one value into its slot: a primitive as it is, an array or object as a container to fill. */
  private copy(step: Pending): void {
    const { place } = step;
    this.reading = place;
    this.readingKey = undefined;
    const value = settle(step.value, place.parent === null ? '' : String(place.key));
    if (value === undefined) {
      // What toJSON gave nothing for: left out of an object, null in an array.
      fill(step, undefined);
      return;
    }
    if (!isObject(value)) {
      const problem = primitiveProblem(value);
      if (problem) refuse(place, problem, value);
      fill(step, value);
      this.count(step.keyBytes + primitiveBytes(value));
      return;
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
    if (Array.isArray(value)) this.copyArray(value, step, depth);
    else this.copyObject(value, step, depth);
  }

  /** An array's copy: its primitives now, its arrays and objects pushed to copy later. */
  private copyArray(value: readonly unknown[], step: Pending, depth: number): void {
    const { place } = step;
    const length = toLength(value.length);
    this.count(step.keyBytes + 2 + Math.max(length - 1, 0));
    const copy: unknown[] = new Array(length);
    fill(step, copy);
    for (let i = 0; i < length; i++) {
      this.readingKey = i;
      // A hole is written as null, as JSON.stringify does.
      const item = i in value ? value[i] : null;
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        refuse(place, 'a JSON value', item, i);
      }
      if (typeof item === 'object' && item !== null) {
        copy[i] = null;
        this.stack.push({
          value: item,
          place: { parent: place, key: i },
          depth,
          array: true,
          into: copy,
          slot: i,
          keyBytes: 0,
        });
        continue;
      }
      const problem = primitiveProblem(item);
      if (problem) refuse(place, problem, item, i);
      copy[i] = item;
      this.count(primitiveBytes(item));
    }
  }

  /** An object's copy, keys in their order: its primitives now, its arrays and objects pushed to copy later. */
  private copyObject(value: Record<string, unknown>, step: Pending, depth: number): void {
    const { place } = step;
    const keys = Object.keys(value);
    this.count(step.keyBytes + 2 + Math.max(keys.length - 1, 0));
    const copy: Record<string, unknown> = {};
    fill(step, copy);
    for (const key of keys) {
      if (!isStorableText(key)) refuse(place, `keys that are ${TEXT}`, key);
      this.readingKey = key;
      const item = value[key];
      if (item === undefined) continue;
      if (typeof item === 'function' || typeof item === 'symbol') refuse(place, 'a JSON value', item, key);
      const keyBytes = key.length + 3;
      if (typeof item === 'object' && item !== null) {
        // Set now, so the key keeps its place in the object's order.
        put(copy, key, null);
        this.stack.push({
          value: item,
          place: { parent: place, key },
          depth,
          array: false,
          into: copy,
          slot: key,
          keyBytes,
        });
        continue;
      }
      const problem = primitiveProblem(item);
      if (problem) refuse(place, problem, item, key);
      put(copy, key, item);
      this.count(keyBytes + primitiveBytes(item));
    }
  }

  /** Add `n` bytes to the text's length; over the limit, refuse the payload (or the cycle that filled it). */
  private count(n: number): void {
    this.bytes += n;
    if (this.bytes <= this.maxBytes) return;
    // A cycle wide enough can fill the budget before it nests too deep: name it as a cycle.
    const cycle = cycleIn(this.reading);
    if (cycle) refuse(cycle, 'JSON data without cycles', '[cycle]');
    refuse(this.rootPlace, `JSON of at most ${this.maxBytes} bytes`, `more than ${this.maxBytes} bytes`);
  }
}

/** Write a copied value into its slot; undefined is null in an array and no key in an object. */
function fill(step: Pending, value: unknown): void {
  if (step.array) step.into[step.slot] = value === undefined ? null : value;
  else if (value === undefined) delete step.into[step.slot];
  else put(step.into, step.slot, value);
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
function put(into: Record<string, unknown>, slot: string, value: unknown): void {
  if (slot === '__proto__') {
    Object.defineProperty(into, slot, { value, writable: true, enumerable: true, configurable: true });
  } else {
    into[slot] = value;
  }
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
