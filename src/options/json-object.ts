// What JSON.stringify makes of an object: its toJSON result, and whether it is data at all.
import { types } from 'node:util';
import { isObject } from '../model/guards.js';

/**
 * Why an object (already past its `toJSON`) would not survive JSON.stringify as it is, or null
 * when it would. JSON.stringify writes only an object's own enumerable keys, so a Map, a Set,
 * a typed array, an Error, a RegExp or an instance of any class without `toJSON` becomes `{}`
 * or loses its fields without a word: only arrays and plain objects (made by `{}`,
 * `Object.create(null)` or another realm's `Object`) are accepted. A Proxy is read through its
 * traps, as JSON.stringify reads it, and not asked for its prototype.
 */
export function objectShapeProblem(value: object): { expected: string; got: string } | null {
  if (Array.isArray(value) || types.isProxy(value)) return null;
  const proto: object | null = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null) return null;
  return { expected: EXPECTED, got: kindOf(value, proto) };
}

/** What JSON.stringify serialises for an object: its `toJSON` result, a boxed primitive unboxed. */
export function settle(value: unknown, key: string): unknown {
  if (!isObject(value)) return value;
  let settled: unknown = value;
  const toJSON = value.toJSON;
  if (typeof toJSON === 'function') settled = toJSON.call(value, key);
  if (typeof settled !== 'object' || settled === null || !types.isBoxedPrimitive(settled)) return settled;
  if (types.isNumberObject(settled)) return Number(settled);
  if (types.isStringObject(settled)) return String(settled);
  if (types.isBooleanObject(settled)) return Boolean.prototype.valueOf.call(settled);
  if (types.isBigIntObject(settled)) return BigInt.prototype.valueOf.call(settled);
  return settled;
}

const EXPECTED =
  'a plain object or array (JSON would store a Map, Set or class instance without toJSON as {}: convert it first)';

/** What the object is, in a word, read without running the caller's code. */
function kindOf(value: object, proto: object): string {
  if (types.isMap(value)) return 'a Map';
  if (types.isSet(value)) return 'a Set';
  const maker: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  const name = typeof maker === 'function' ? maker.name : '';
  return name ? `an instance of ${name}` : 'an object with a prototype of its own';
}

/** An array's length as JSON.stringify reads it (ToLength): a whole number from 0. */
export function toLength(length: unknown): number {
  const n = Math.trunc(Number(length));
  return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
}
