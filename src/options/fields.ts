import {
  type TAnySchema,
  type TBoolean,
  type TInteger,
  type TLiteral,
  type TNumber,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TString,
  type TUnion,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';
import { isOneOf } from '../model/guards.js';

/*
 * Option fields declared as data: each builder returns a JSON Schema (TypeBox) carrying what
 * the rest derives from it. `expected` says, in an error, what the field takes; `docType` and
 * `docDefault` are its cells in the docs table, `description` its meaning; `default` is the
 * value a missing field takes. A field whose check JSON Schema cannot say (a function, a
 * retention policy, a cron expression) is `custom`: its schema is for documents only, and its
 * own `check` runs after the structural one.
 */

/** What every field says of itself. */
export interface FieldDoc {
  /** The meaning column of the docs table (markdown). */
  description: string;
  /** The default column when it is not simply `default` written as code. */
  docDefault?: string;
  /** The type column when it is not what the builder says. */
  docType?: string;
  /** An object field: one docs row per field inside it (`backoff.factor`), none for the whole. */
  docExpand?: boolean;
  /** A field stored as it is read, in this column of the row its set writes (a job's `priority`). */
  column?: string;
}

/** A custom field's check: throws a typed error naming `field`, or returns the value to keep. */
export type CustomCheck<Out> = (value: unknown, field: string, warnings: string[]) => Out;

/** A field's schema as read back, with the annotations its builder put on it. */
export interface FieldMeta extends TSchema, Omit<FieldDoc, 'description'> {
  description: string;
  expected: string;
  docType: string;
  default?: unknown;
  /** For custom fields: the check that runs after the structural one. */
  check?: CustomCheck<unknown>;
  /** For custom fields: the JSON Schema that documents them (the structural one accepts anything). */
  jsonSchema?: Record<string, unknown>;
  /** Taken as given, not copied first: its check reads it once, guarding every read itself. */
  opaque?: boolean;
}

/** A field with a default: once read, it is always there. */
export type WithDefault<S, D> = [D] extends [undefined] ? S : S & { default: D };

/**
 * A field's schema typed as its builder declares it. TypeBox types a schema by the keywords it
 * is built from; the default a field is given (filled in by `read`) and a custom field's own
 * types are not among them, so each builder states them here, once.
 */
function declared<S extends TSchema, D>(schema: TSchema): WithDefault<S, D> {
  return schema as WithDefault<S, D>;
}

/** A custom field, typed as the caller gives it and as its check returns it. */
export type TCustom<In, Out = In> = TUnsafe<In> & { readonly '~custom': true; readonly '~out'?: Out };

/** The properties of an object, each optional unless listed in R: what Type.Object reads. */
export type Fields<P extends TProperties, R extends keyof P = never> = {
  [K in keyof P]: K extends R ? P[K] : TOptional<P[K]>;
};

/** Numbers as the docs write them: 10,000 and 3,153,600,000. */
export function grouped(n: number): string {
  return n.toLocaleString('en-US');
}

/** `text` and `\|` for a markdown table cell. */
function code(value: unknown): string {
  return `\`${typeof value === 'string' ? `'${value}'` : JSON.stringify(value)}\``;
}

function meta(doc: FieldDoc, expected: string, docType: string, fallback?: unknown) {
  const annotations: Record<string, unknown> = {
    description: doc.description,
    expected,
    docType: doc.docType ?? docType,
  };
  if (fallback !== undefined) annotations.default = fallback;
  if (doc.docDefault !== undefined) annotations.docDefault = doc.docDefault;
  if (doc.docExpand) annotations.docExpand = true;
  if (doc.column !== undefined) annotations.column = doc.column;
  return annotations;
}

/** A whole number from min to max. */
export function integer<D extends number | undefined = undefined>(
  min: number,
  max: number,
  doc: FieldDoc & { default?: D },
): WithDefault<TInteger, D> {
  return declared<TInteger, D>(
    Type.Integer({
      minimum: min,
      maximum: max,
      ...meta(
        doc,
        `an integer from ${min} to ${max}`,
        `\`number\` (whole, ${grouped(min)} to ${grouped(max)})`,
        doc.default,
      ),
    }),
  );
}

/** A duration in seconds: a finite number, fractions allowed. */
export function seconds<D extends number | undefined = undefined>(
  range: { min?: number; max?: number; exclusiveMin?: boolean },
  doc: FieldDoc & { default?: D },
): WithDefault<TNumber, D> {
  const { min = 0, max = 3.2e9, exclusiveMin = false } = range;
  const bound = exclusiveMin ? { exclusiveMinimum: min } : { minimum: min };
  const docType = exclusiveMin
    ? `\`number\` (> ${grouped(min)}, up to ${grouped(max)})`
    : `\`number\` (${grouped(min)} to ${grouped(max)})`;
  return declared<TNumber, D>(
    Type.Number({
      ...bound,
      maximum: max,
      ...meta(
        doc,
        `a number of seconds ${exclusiveMin ? '>' : '>='} ${min} and <= ${max}`,
        docType,
        doc.default,
      ),
    }),
  );
}

/**
 * Text PostgreSQL stores as given: no NUL (text and jsonb refuse it), no unpaired UTF-16
 * surrogate (jsonb refuses one, text would turn it into U+FFFD).
 */
export const STORABLE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';

/** A non-empty string of storable text, at most `max` characters. */
export function text<D extends string | undefined = undefined>(
  max: number,
  doc: FieldDoc & { default?: D },
): WithDefault<TString, D> {
  return declared<TString, D>(
    Type.String({
      minLength: 1,
      maxLength: max,
      pattern: STORABLE_TEXT,
      ...meta(
        doc,
        `a non-empty string of at most ${max} characters, without NUL or unpaired surrogates`,
        '`string`',
        doc.default,
      ),
    }),
  );
}

export function boolean<D extends boolean | undefined = undefined>(
  doc: FieldDoc & { default?: D },
): WithDefault<TBoolean, D> {
  return declared<TBoolean, D>(Type.Boolean(meta(doc, 'true or false', '`boolean`', doc.default)));
}

/** One fixed value. */
export function literal<V extends string | number | boolean>(value: V): TLiteral<V> {
  return Type.Literal(value);
}

/** An object of these fields, no other; `expected` and the docs say what it is as a whole. */
export function object<
  P extends TProperties,
  R extends keyof P & string = never,
  D extends object | undefined = undefined,
>(
  properties: P,
  doc: FieldDoc & { expected?: string; docType: string; default?: D; required?: R[] },
): WithDefault<TObject<Fields<P, R>>, D> {
  const fields: TProperties = {};
  for (const [key, schema] of Object.entries(properties)) {
    fields[key] = doc.required !== undefined && isOneOf(doc.required, key) ? schema : Type.Optional(schema);
  }
  return declared<TObject<Fields<P, R>>, D>(
    Type.Object(fields, {
      additionalProperties: false,
      ...meta(doc, doc.expected ?? 'an object', doc.docType, doc.default),
    }),
  );
}

/** One of several shapes (`false` or an object, a number or `'auto'`). */
export function either<T extends TSchema[], D = undefined>(
  members: [...T],
  doc: FieldDoc & { expected: string; docType: string; default?: D },
): WithDefault<TUnion<T>, D> {
  return declared<TUnion<T>, D>(Type.Union(members, meta(doc, doc.expected, doc.docType, doc.default)));
}

/**
 * A field checked by code: a function, an instance, a policy or an expression JSON Schema
 * cannot check. `jsonSchema` documents it (for the JSON Schema of the set); `check` runs
 * after the structural check and gives the value kept.
 */
export function custom<In, Out = In, D = undefined>(
  doc: FieldDoc & {
    expected: string;
    docType: string;
    check: CustomCheck<Out>;
    jsonSchema?: Record<string, unknown>;
    default?: D;
  },
): WithDefault<TCustom<In, Out>, D> {
  const { check, jsonSchema, ...rest } = doc;
  // Spread from Type.Any so the compiled check takes anything here (its Kind is Any).
  const schema = {
    ...Type.Any(),
    ...meta(rest, rest.expected, rest.docType, rest.default),
    check,
    jsonSchema: jsonSchema ?? {},
    '~custom': true,
  };
  return declared<TCustom<In, Out>, D>(schema);
}

/** The annotations of a field's schema. */
export function fieldMeta(schema: TAnySchema): FieldMeta {
  return schema as FieldMeta;
}

/** `docDefault`, else the default written as code, else none. */
export function docDefaultOf(schema: TAnySchema): string {
  const field = fieldMeta(schema);
  if (field.docDefault !== undefined) return field.docDefault;
  if (field.default !== undefined) return code(field.default);
  return 'none';
}
