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
  return copy(value, '', root, new Set(opaque), new Map());
}

function copy(value: unknown, path: string, root: string, opaque: Set<string>, seen: Map<object, unknown>) {
  if (!isObject(value)) return value;
  const field = path || root;
  const known = seen.get(value);
  if (known !== undefined) return known;
  const shape = guarded(field, () => {
    if (Array.isArray(value)) return 'array';
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null ? 'object' : 'other';
  });
  if (shape === 'other') return value;
  const out: Record<string, unknown> | unknown[] = shape === 'array' ? [] : {};
  seen.set(value, out);
  const keys = guarded(field, () => Object.keys(value));
  for (const key of keys) {
    const at = shape === 'array' ? `${field}[${key}]` : path ? `${path}.${key}` : key;
    const read = guarded(at, () => value[key]);
    (out as Record<string, unknown>)[key] =
      path === '' && opaque.has(key) ? read : copy(read, at, root, opaque, seen);
  }
  return out;
}

function guarded<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new InvalidOptionError(field, 'a value that can be read (reading it threw)', undefined, error);
  }
}
