import { InvalidOptionError } from '../errors.js';
import { isObject } from '../model/guards.js';

/**
 * A plain copy of an options object, read once before it is checked: every own enumerable
 * property of every plain object and array in it. The checks then read values that can
 * neither throw nor change between two reads. A getter or a Proxy trap that throws is an
 * InvalidOptionError naming the field, with the caller's error as `cause`, before anything
 * is written. Values that are not plain (functions, class instances such as a pg.Pool or a
 * PGlite) are kept as they are, and so are the top-level fields named in `opaque` (a job's
 * `data`, checked and copied on its own).
 */
export function readOptions(value: unknown, root: string, opaque: readonly string[] = []): unknown {
  return copy(value, '', root, opaque, null);
}

/**
 * `seen` maps each object copied so far to its copy (a value met twice is copied once, and a
 * cycle ends); made on the first nested object, as most options have none. The reads are
 * guarded inline rather than through a callback: this runs for every job a bulk add reads.
 */
function copy(
  value: unknown,
  path: string,
  root: string,
  opaque: readonly string[],
  seen: Map<object, unknown> | null,
): unknown {
  if (!isObject(value)) return value;
  const field = path || root;
  const known = seen?.get(value);
  if (known !== undefined) return known;
  let shape: 'array' | 'object' | 'other';
  let keys: string[];
  try {
    const proto = Array.isArray(value) ? null : Object.getPrototypeOf(value);
    shape = Array.isArray(value)
      ? 'array'
      : proto === Object.prototype || proto === null
        ? 'object'
        : 'other';
    if (shape === 'other') return value;
    keys = Object.keys(value);
  } catch (error) {
    throw unreadable(field, error);
  }
  const out: Record<string, unknown> | unknown[] = shape === 'array' ? [] : {};
  seen?.set(value, out);
  let copies = seen;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const at = shape === 'array' ? `${field}[${key}]` : path ? `${path}.${key}` : key;
    let read: unknown;
    try {
      read = value[key];
    } catch (error) {
      throw unreadable(at, error);
    }
    if (isObject(read) && !(path === '' && opaque.includes(key))) {
      copies ??= new Map([[value, out]]);
      (out as Record<string, unknown>)[key] = copy(read, at, root, opaque, copies);
    } else {
      (out as Record<string, unknown>)[key] = read;
    }
  }
  return out;
}

function unreadable(field: string, cause: unknown): InvalidOptionError {
  return new InvalidOptionError(field, 'a value that can be read (reading it threw)', undefined, cause);
}
