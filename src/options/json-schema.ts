import type { TProperties } from '@sinclair/typebox';
import { isRecord } from '../model/guards.js';
import type { OptionSet } from './option-set.js';

/** Annotations for Tidemark's own use: not part of the JSON Schema others read. */
const OWN_KEYS = new Set([
  'expected',
  'docType',
  'docDefault',
  'docExpand',
  'column',
  'check',
  'jsonSchema',
  'opaque',
  '~custom',
]);

/**
 * An option set as a JSON Schema (draft 2020-12) for other languages and documents (the HTTP
 * API's OpenAPI document, SQL validation): a custom field becomes the schema that documents
 * it, defaults that are not JSON are left out, and Tidemark's own annotations are dropped.
 */
export function toJsonSchema<P extends TProperties, R extends keyof P & string>(
  set: OptionSet<P, R>,
): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: set.name, ...plain(set.schema) };
}

function plain(schema: unknown): Record<string, unknown> {
  // Every schema here is an object: what a field builder made, or a part of one.
  const field = isRecord(schema) ? schema : {};
  // A custom field's default is the value its check keeps (a job's data as JSON text, say):
  // its documenting schema states the default a caller would write, when there is one.
  if (field.check) {
    return { ...(isRecord(field.jsonSchema) ? field.jsonSchema : {}), description: field.description };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(field)) {
    if (OWN_KEYS.has(key) || (key === 'default' && !isJson(value))) continue;
    out[key] = transform(key, value);
  }
  return out;
}

function transform(key: string, value: unknown): unknown {
  if ((key === 'properties' || key === '$defs') && isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  if ((key === 'anyOf' || key === 'allOf' || key === 'oneOf') && Array.isArray(value)) {
    return value.map(plain);
  }
  if (key === 'items' && value !== null && typeof value === 'object') return plain(value);
  return value;
}

function isJson(value: unknown): boolean {
  if (value === undefined) return false;
  try {
    return JSON.stringify(value) !== undefined && typeof value !== 'function';
  } catch {
    return false;
  }
}
