import type { StandardSchemaV1 } from '@standard-schema/spec';
import { JobValidationError, type ValidatedValue, type ValidationIssue } from '../errors/input.js';

export type { StandardSchemaV1 } from '@standard-schema/spec';

/** What a schema accepts (before its transforms): what producers pass. */
export type SchemaInput<S> = S extends StandardSchemaV1<infer In, unknown> ? In : unknown;

/** What a schema gives back (after its transforms): what is stored and what handlers read. */
export type SchemaOutput<S> = S extends StandardSchemaV1<unknown, infer Out> ? Out : unknown;

/** Whether `value` implements Standard Schema v1 (zod, valibot, arktype and others do). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as Partial<StandardSchemaV1>)['~standard'];
  return (
    typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function'
  );
}

/** The outcome of a check: the schema's value, or its issues with their paths. */
export type Checked<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** Run a schema on `value` (its validate may be synchronous or not). */
export async function validate<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): Promise<Checked<SchemaOutput<S>>> {
  const result = await schema['~standard'].validate(value);
  if (result.issues === undefined) return { ok: true, value: result.value as SchemaOutput<S> };
  return { ok: false, issues: result.issues.map(toIssue) };
}

/**
 * `value` as `schema` gives it back; JobValidationError naming the queue and what was checked
 * when the schema refuses it. Without a schema, `value` as given.
 */
export async function checkedBy(
  schema: StandardSchemaV1 | undefined,
  value: unknown,
  queue: string,
  what: ValidatedValue,
): Promise<unknown> {
  if (schema === undefined) return value;
  const checked = await validate(schema, value);
  if (!checked.ok) throw new JobValidationError(queue, what, checked.issues);
  return checked.value;
}

function toIssue(issue: StandardSchemaV1.Issue): ValidationIssue {
  const path = (issue.path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'number' ? key : String(key);
  });
  return { path, message: issue.message };
}
