import {
  KindGuard,
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { InvalidOptionError } from '../errors.js';
import { isOneOf, isRecord } from '../model/guards.js';
import { type CustomCheck, type Fields, fieldMeta, type TCustom } from './fields.js';
import { readOptions } from './read-options.js';

/** Reads of a set checked by the interpreter before its check is compiled (OptionSet.check). */
const COMPILE_AFTER_READS = 3;

/** The value a field takes once read: a custom field's check result, nested defaults filled in. */
type ValueOf<S> =
  S extends TCustom<unknown, infer Out>
    ? Out
    : S extends TObject<infer Q>
      ? ReadOptions<Q>
      : S extends TUnion<infer M>
        ? ValueOf<M[number]>
        : S extends TSchema
          ? Static<S>
          : never;

/** A field present once read: required, or given a default. */
type Present<S> = S extends { default: unknown } ? true : S extends TOptional<TSchema> ? false : true;

type Always<P extends TProperties> = {
  [K in keyof P as Present<P[K]> extends true ? K : never]-?: ValueOf<P[K]>;
};
type Sometimes<P extends TProperties> = {
  [K in keyof P as Present<P[K]> extends true ? never : K]?: ValueOf<P[K]>;
};

/** What `read` gives: every field checked, defaults filled in, custom fields as their checks return. */
export type ReadOptions<P extends TProperties> = Always<P> & Sometimes<P>;

/** What a caller may pass to a set of fields P, of which R are required. */
export type OptionsOf<P extends TProperties, R extends keyof P = never> = Static<TObject<Fields<P, R>>>;

/**
 * One set of options declared once: its JSON Schema (`schema`), and from it the check that
 * refuses an unknown key or a bad value with an InvalidOptionError naming the field, the
 * defaults, the TypeScript types (`OptionsOf`, `ReadOptions`), the docs table and the JSON
 * Schema for other languages (docs-table.ts, json-schema.ts).
 */
export class OptionSet<P extends TProperties, R extends keyof P & string = never> {
  readonly schema: TObject;
  #compiled: TypeCheck<TObject> | null = null;
  /** Reads so far, until the check is compiled (see check). */
  #reads = 0;
  /** What reading does after the check (see Plan), worked out on the first read. */
  #plan: Plan | null = null;
  /** Fields taken as given rather than copied (see FieldMeta.opaque). */
  readonly #opaque: string[] = [];

  /**
   * @param name what the set is, in errors about the whole (`'queue'`, `'worker'`) and in
   * the docs, where its table follows `<!-- options:name -->`.
   * @param required the fields that must be given.
   */
  constructor(
    readonly name: string,
    properties: P,
    required: readonly R[] = [],
  ) {
    const fields: TProperties = {};
    for (const [key, schema] of Object.entries(properties)) {
      fields[key] = isOneOf(required, key) ? schema : Type.Optional(schema);
      if (fieldMeta(schema).opaque) this.#opaque.push(key);
    }
    this.schema = Type.Object(fields, { additionalProperties: false });
    this.properties = properties;
    this.required = required;
  }

  readonly properties: P;
  readonly required: readonly R[];

  /** A set of some of these fields, under another name (`ctx.runChild`'s options of a job's). */
  pick<K extends keyof P & string>(name: string, keys: readonly K[]): OptionSet<Pick<P, K>, Extract<R, K>> {
    const picked = Object.fromEntries(keys.map((key) => [key, this.properties[key]])) as Pick<P, K>;
    const required = this.required.filter((key): key is Extract<R, K> => isOneOf(keys, key));
    return new OptionSet(name, picked, required);
  }

  /**
   * Whether `value` fits the schema. In a new process the first compile and check of the
   * worker's options took 5.2 ms, the first interpreted check 0.7, and most sets are read once
   * or twice in a process (its open, each queue, each worker): those are checked by TypeBox's
   * interpreter, and a set read more often (a job's options) is compiled on its third read.
   */
  private check(value: unknown): boolean {
    if (this.#compiled) return this.#compiled.Check(value);
    if (++this.#reads < COMPILE_AFTER_READS) return Value.Check(this.schema, value);
    this.#compiled = TypeCompiler.Compile(this.schema);
    return this.#compiled.Check(value);
  }

  /** The fields stored as they are read, each with its column (see FieldDoc.column). */
  columns(): [string, string][] {
    return this.fields.flatMap(([key, schema]) => {
      const { column } = fieldMeta(schema);
      return column === undefined ? [] : [[key, column]];
    });
  }

  /** The fields, in declaration order. */
  get fields(): [string, TSchema][] {
    return Object.entries(this.schema.properties);
  }

  /**
   * Read options once into a plain copy (see readOptions: a getter that throws is named),
   * check them, run the custom checks and fill in the defaults. `field` prefixes every error
   * (`jobs[3]`). Warnings (a batch size clamped) go to `warnings`.
   */
  read(input: OptionsOf<P, R> | unknown, field = '', warnings: string[] = []): ReadOptions<Fields<P, R>> {
    const at = (path: string) => (field && path ? `${field}.${path}` : field || path);
    const value = readOptions(input, field || this.name, this.#opaque);
    if (!isRecord(value)) throw new InvalidOptionError(field || this.name, 'an object', input);
    if (!this.check(value)) throw this.refusal(value, at);
    this.#plan ??= planOf(this.schema);
    complete(this.#plan, value, at, warnings);
    // What `complete` made of the checked value: its custom fields checked, its defaults in.
    return value as ReadOptions<Fields<P, R>>;
  }

  /** The error of the first thing wrong, naming its field as the caller wrote it. */
  private refusal(value: unknown, at: (path: string) => string): InvalidOptionError {
    const first = Value.Errors(this.schema, value).First();
    // A value the check refused has a first error; the fallback only keeps the types whole.
    return first ? describeError(first, at) : new InvalidOptionError(at(''), 'a valid value', value);
  }
}

function describeError(error: ValueError, at: (path: string) => string): InvalidOptionError {
  if (error.type === ValueErrorType.Union && isRecord(error.value) && KindGuard.IsUnion(error.schema)) {
    // `false` or an object, given an object: say what is wrong inside it.
    for (const member of error.schema.anyOf) {
      if (member.type !== 'object') continue;
      const inner = Value.Errors(member, error.value).First();
      if (inner) return describeError({ ...inner, path: `${error.path}${inner.path}` }, at);
    }
  }
  const path = fieldPath(error.path);
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const parent = fieldPath(error.path.slice(0, error.path.lastIndexOf('/')));
    const known = KindGuard.IsObject(error.schema) ? Object.keys(error.schema.properties) : [];
    return new InvalidOptionError(
      at(path),
      `one of the known options (${known.join(', ')})`,
      parent === '' ? path : path.slice(parent.length + 1),
    );
  }
  return new InvalidOptionError(at(path), fieldMeta(error.schema).expected ?? 'a valid value', error.value);
}

/** `/idempotencyKey/key` → `idempotencyKey.key`; `/queues/0` → `queues[0]`. */
function fieldPath(pointer: string): string {
  let path = '';
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(key) ? `[${key}]` : path ? `.${key}` : key;
  }
  return path;
}

/** What reading an object does after the structural check, worked out once per object schema. */
interface Plan {
  /** Custom fields and their checks. */
  customs: [string, CustomCheck<unknown>][];
  /** Fields with a default. */
  defaults: [string, unknown][];
  /** Fields that are objects (or `false` or an object) with fields of their own, and their defaults. */
  nested: [string, TObject, unknown][];
}

const plans = new WeakMap<TObject, Plan>();

function planOf(schema: TObject): Plan {
  let plan = plans.get(schema);
  if (plan) return plan;
  plan = { customs: [], defaults: [], nested: [] };
  for (const [key, field] of Object.entries(schema.properties)) {
    const { default: fallback, check } = fieldMeta(field);
    if (fallback !== undefined) plan.defaults.push([key, fallback]);
    if (check) {
      plan.customs.push([key, check]);
      continue;
    }
    const shape = KindGuard.IsObject(field)
      ? field
      : KindGuard.IsUnion(field)
        ? field.anyOf.find((member) => KindGuard.IsObject(member))
        : undefined;
    if (shape) plan.nested.push([key, shape, fallback]);
  }
  plans.set(schema, plan);
  return plan;
}

/**
 * Run the custom checks (each keeps what it returns) and give every missing field its
 * default, in this object and in the objects given inside it.
 */
function complete(
  plan: Plan,
  options: Record<string, unknown>,
  at: (path: string) => string,
  warnings: string[],
): void {
  // Indexed loops: this runs for every job a bulk add reads.
  const { customs, defaults, nested } = plan;
  for (let i = 0; i < customs.length; i++) {
    const key = customs[i][0];
    const value = options[key];
    if (value !== undefined) options[key] = customs[i][1](value, at(key), warnings);
  }
  for (let i = 0; i < defaults.length; i++) {
    const key = defaults[i][0];
    if (options[key] === undefined) options[key] = defaults[i][1];
  }
  for (let i = 0; i < nested.length; i++) {
    const [key, shape, fallback] = nested[i];
    const value = options[key];
    // A default object is the declared one, complete already; only a given object is filled.
    if (isRecord(value) && value !== fallback) {
      complete(planOf(shape), value, (path) => at(`${key}.${path}`), warnings);
    }
  }
}
