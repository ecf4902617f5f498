/*
 * Type predicates and typed readers for values of unknown shape (options, thrown errors, stored
 * JSON), written once so that callers narrow a value instead of asserting its type.
 */

/** A non-null object, an array too: any of its properties can be read, by name. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Any value that holds properties: an object (an array too) or a function. */
export function hasProperties(value: unknown): value is Record<string, unknown> {
  return isObject(value) || typeof value === 'function';
}

/** A non-null object that is not an array: a record of fields to read one by one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` of an object or function, read as it is; undefined for null, undefined and primitives. */
export function propertyOf(value: unknown, key: string): unknown {
  return hasProperties(value) ? value[key] : undefined;
}

/** Whether `value` is one of `list`: a list of names narrows a string (or anything) to its names. */
export function isOneOf<T>(list: readonly T[], value: unknown): value is T {
  const items: readonly unknown[] = list;
  return items.includes(value);
}

/**
 * The keys of an object whose keys are exactly those of its type: a constant declared here, or a
 * record built field by field. (A value of a wider shape may carry more keys than its type says.)
 */
export function keysOf<T extends object>(value: T): (keyof T & string)[] {
  return Object.keys(value) as (keyof T & string)[];
}
