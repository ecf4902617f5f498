/**
 * The JSON Schema a callback token's payload is checked by. It is stored with the token, so
 * whichever process completes the token (a web server that never runs the workflow) checks
 * the payload before anything is written. A TypeBox schema (`Type.Object(...)`) is one as it
 * is; so is a plain JSON Schema object using the keywords below. Other keywords are refused
 * when the token is made, so a schema is never enforced only in part.
 */

/** Keywords checked. */
const CHECKED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'anyOf',
]);

/** Keywords that say nothing about validity. */
const ANNOTATIONS = new Set(['title', 'description', '$id', '$schema', 'default', 'examples', 'format']);

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/** The largest schema stored with a token, as JSON text. */
export const MAX_SCHEMA_BYTES = 16_384;

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where `schema` (at `path`) is not a schema this checker can enforce, or null when it is. */
export function schemaProblem(schema: unknown, path = 'schema'): { path: string; problem: string } | null {
  if (typeof schema === 'boolean') return null;
  if (!isSchema(schema)) return { path, problem: 'is not a JSON Schema object' };
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (!CHECKED.has(key)) return { path: `${path}.${key}`, problem: 'is a keyword tokens do not check' };
    if (key === 'type') {
      const types = Array.isArray(value) ? value : [value];
      if (!types.every((t) => typeof t === 'string' && TYPES.has(t))) {
        return { path: `${path}.type`, problem: 'is not a JSON type name' };
      }
    } else if (key === 'properties') {
      if (!isSchema(value)) return { path: `${path}.properties`, problem: 'is not an object' };
      for (const [name, sub] of Object.entries(value)) {
        const found = schemaProblem(sub, `${path}.properties.${name}`);
        if (found) return found;
      }
    } else if (key === 'items' || key === 'additionalProperties') {
      const found = schemaProblem(value, `${path}.${key}`);
      if (found) return found;
    } else if (key === 'anyOf') {
      if (!Array.isArray(value) || value.length === 0)
        return { path: `${path}.anyOf`, problem: 'is not a list' };
      for (const [i, sub] of value.entries()) {
        const found = schemaProblem(sub, `${path}.anyOf.${i}`);
        if (found) return found;
      }
    } else if (key === 'required' || key === 'enum') {
      if (!Array.isArray(value)) return { path: `${path}.${key}`, problem: 'is not a list' };
    } else if (key === 'pattern') {
      try {
        new RegExp(String(value), 'u');
      } catch {
        return { path: `${path}.pattern`, problem: 'is not a regular expression' };
      }
    } else if (key !== 'const' && typeof value !== 'number') {
      return { path: `${path}.${key}`, problem: 'is not a number' };
    }
  }
  return null;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The first place `value` breaks `schema` (a path from `path`, and what is wrong), or null.
 * `schema` passed schemaProblem when the token was made.
 */
export function payloadProblem(
  schema: unknown,
  value: unknown,
  path = 'data',
): { path: string; problem: string } | null {
  if (schema === true || schema === undefined || schema === null) return null;
  if (schema === false) return { path, problem: 'is not allowed' };
  const s = schema as Schema;
  const fail = (problem: string) => ({ path, problem });
  const actual = typeOf(value);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    const fits = types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
    if (!fits) return fail(`must be ${types.join(' or ')}`);
  }
  if (s.const !== undefined && !same(s.const, value)) return fail(`must be ${JSON.stringify(s.const)}`);
  if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, value)))
    return fail('is not one of the allowed values');
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub) => payloadProblem(sub, value, path) === null)) {
    return fail('matches none of the allowed shapes');
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s.minLength === 'number' && length < s.minLength)
      return fail(`must be at least ${s.minLength} characters`);
    if (typeof s.maxLength === 'number' && length > s.maxLength)
      return fail(`must be at most ${s.maxLength} characters`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value))
      return fail(`must match ${s.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return fail(`must be >= ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) return fail(`must be <= ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
      return fail(`must be > ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
      return fail(`must be < ${s.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems)
      return fail(`must have at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems)
      return fail(`must have at most ${s.maxItems} items`);
    if (s.items !== undefined) {
      for (const [i, item] of value.entries()) {
        const found = payloadProblem(s.items, item, `${path}.${i}`);
        if (found) return found;
      }
    }
  }
  if (isSchema(value)) return objectProblem(s, value, path);
  return null;
}

function objectProblem(s: Schema, value: Schema, path: string): { path: string; problem: string } | null {
  const properties = isSchema(s.properties) ? s.properties : {};
  if (Array.isArray(s.required)) {
    for (const name of s.required) {
      if (!Object.hasOwn(value, String(name))) return { path: `${path}.${name}`, problem: 'is required' };
    }
  }
  for (const [name, item] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, name) ? properties[name] : s.additionalProperties;
    if (sub === false) return { path: `${path}.${name}`, problem: 'is not an allowed property' };
    const found = payloadProblem(sub, item, `${path}.${name}`);
    if (found) return found;
  }
  return null;
}
