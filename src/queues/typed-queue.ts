import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, JobValidationError } from '../errors.js';
import { isObject } from '../model/guards.js';
import type { Job } from '../model/job.js';
import {
  checkedBy,
  isStandardSchema,
  type SchemaInput,
  type SchemaOutput,
  type StandardSchemaV1,
  validate,
} from '../model/standard-schema.js';
import type { JobContext, RunChildOptions, SignalResult } from '../workflow/job-context.js';
import { defineQueue } from './define-queue.js';
import type { Handler, QueueOptions, QueueSchemas, ResolvedQueue } from './queue-options.js';

/** A signal a typed queue accepts: its mailbox size, and the schema of its payload. */
export interface SignalDeclaration {
  mailbox: number;
  schema?: StandardSchemaV1;
}

/** The signals of a typed queue, by name. */
export type SignalDeclarations = Record<string, SignalDeclaration>;

/** The payload type of signal `N`: its schema's output, unknown without a schema. */
export type SignalPayload<S, N extends keyof S> = S[N] extends { schema: infer P }
  ? SchemaOutput<P>
  : unknown;

/** The payload type a producer passes for signal `N`: its schema's input. */
export type SignalPayloadIn<S, N extends keyof S> = S[N] extends { schema: infer P }
  ? SchemaInput<P>
  : unknown;

/** What a queue's jobs take at add: the input schema's input, unknown without one. */
export type DataIn<I> = I extends StandardSchemaV1 ? SchemaInput<I> : unknown;
/** What a handler reads: the input schema's output. */
export type DataOut<I> = I extends StandardSchemaV1 ? SchemaOutput<I> : unknown;
/** What a handler returns: the output schema's input. */
export type OutputIn<O> = O extends StandardSchemaV1 ? SchemaInput<O> : unknown;
/** What is stored and what `result` resolves to: the output schema's output. */
export type OutputOut<O> = O extends StandardSchemaV1 ? SchemaOutput<O> : unknown;

/** A queue handle's types, for `ctx.runChild(handle, data)` and the registry. */
export interface TypedQueueRef<In = unknown, Out = unknown> {
  readonly name: string;
  /** Never set: carries the types of the handle's data and output for inference. */
  readonly types?: { data: In; output: Out };
}

/** The handler's context, its signal waits and children typed from the queue's declarations. */
export interface TypedJobContext<S extends SignalDeclarations = SignalDeclarations>
  extends Omit<JobContext, 'waitForSignal' | 'waitForAny' | 'waitForSignals' | 'runChild'> {
  waitForSignal<N extends keyof S & string>(
    name: N,
    options?: { timeoutSeconds?: number },
  ): Promise<
    { timedOut: false; name: N; payload: SignalPayload<S, N> } | { timedOut: true; name: null; payload: null }
  >;
  waitForAny<N extends keyof S & string>(
    names: N[],
    options?: { timeoutSeconds?: number },
  ): Promise<
    { timedOut: false; name: N; payload: SignalPayload<S, N> } | { timedOut: true; name: null; payload: null }
  >;
  waitForSignals<N extends keyof S & string>(
    name: N,
    count: number,
    options?: { timeoutSeconds?: number },
  ): Promise<{ timedOut: false; payloads: SignalPayload<S, N>[] } | { timedOut: true; payloads: [] }>;
  /** Run a child on a typed queue: its data checked against the handle's types, its output typed. */
  runChild<In, Out>(queue: TypedQueueRef<In, Out>, data: In, options?: RunChildOptions): Promise<Out>;
  runChild<T = unknown>(queue: string, data?: unknown, options?: RunChildOptions): Promise<T>;
}

/** `tm.defineQueue`'s options: a queue's options, its schemas, and a handler typed from them. */
export interface DefineQueueOptions<
  I extends StandardSchemaV1 | undefined = undefined,
  O extends StandardSchemaV1 | undefined = undefined,
  S extends SignalDeclarations = Record<never, SignalDeclaration>,
> extends Omit<QueueOptions, 'handler' | 'signals' | 'batch'> {
  /** Checks job data at add (what is stored is its output) and again when a worker claims the job. */
  input?: I;
  /** Checks the handler's return value; a refused output fails the attempt. */
  output?: O;
  /** The signals the queue's jobs accept: mailbox size and payload schema per name. */
  signals?: S;
  /**
   * Repairs stored data the input schema refuses when a worker claims the job (an old
   * producer's shape, a row written by SQL): its return value is checked again. Without it, or
   * when the repair is refused too, the job fails at once with the issues, with no retry.
   */
  upgrade?: (raw: unknown) => unknown;
  handler?: (
    job: Job<DataOut<I>, OutputOut<O>>,
    ctx: TypedJobContext<S>,
  ) => OutputIn<O> | Promise<OutputIn<O>>;
}

const SCHEMA_EXPECTED = 'a Standard Schema (a zod, valibot or arktype schema, or any with `~standard`)';

/**
 * Define a typed queue: check its schemas, wrap its handler so data is checked at claim and
 * the output at return, and define it as `tm.createQueue` does. InvalidOptionError when a
 * schema is not a Standard Schema, or when the queue was defined here with other schemas.
 */
export function defineTypedQueue(
  core: EngineCore,
  options: DefineQueueOptions<never, never, never>,
): ResolvedQueue {
  if (!isObject(options)) throw new InvalidOptionError('options', 'an object', options);
  const { input, output, signals, upgrade, handler, ...rest } = options as DefineQueueOptions<
    StandardSchemaV1 | undefined,
    StandardSchemaV1 | undefined,
    SignalDeclarations
  >;
  if ('batch' in rest && rest.batch !== undefined) {
    // Its handler is checked job by job; a batch handler takes an array.
    throw new InvalidOptionError(
      'batch',
      'no batch on a queue of tm.defineQueue (use tm.createQueue)',
      rest.batch,
    );
  }
  const schemas = checkSchemas(input, output, signals, upgrade);
  const name = rest.name;
  const earlier = typeof name === 'string' ? core.registry.localQueue(name)?.schemas : undefined;
  if (earlier) refuseOtherSchemas(earlier, schemas);
  const mailboxes = signals === undefined ? undefined : mailboxesOf(signals);
  const queue = defineQueue(core, {
    ...rest,
    ...(mailboxes === undefined ? {} : { signals: mailboxes }),
    ...(handler === undefined ? {} : { handler: checkedHandler(String(name), schemas, handler as Handler) }),
  });
  queue.schemas = schemas;
  return queue;
}

function checkSchemas(input: unknown, output: unknown, signals: unknown, upgrade: unknown): QueueSchemas {
  for (const [field, schema] of [
    ['input', input],
    ['output', output],
  ] as const) {
    if (schema !== undefined && !isStandardSchema(schema))
      throw new InvalidOptionError(field, SCHEMA_EXPECTED, schema);
  }
  if (upgrade !== undefined && typeof upgrade !== 'function') {
    throw new InvalidOptionError('upgrade', 'a function (raw) => data', upgrade);
  }
  const bySignal: Record<string, StandardSchemaV1> = {};
  if (signals !== undefined) {
    if (!isObject(signals))
      throw new InvalidOptionError('signals', 'an object of { mailbox, schema? } by name', signals);
    for (const [signal, declaration] of Object.entries(signals)) {
      if (!isObject(declaration)) {
        throw new InvalidOptionError(`signals.${signal}`, 'an object { mailbox, schema? }', declaration);
      }
      const { schema } = declaration;
      if (schema === undefined) continue;
      if (!isStandardSchema(schema))
        throw new InvalidOptionError(`signals.${signal}.schema`, SCHEMA_EXPECTED, schema);
      bySignal[signal] = schema;
    }
  }
  return {
    ...(input === undefined ? {} : { input: input as StandardSchemaV1 }),
    ...(output === undefined ? {} : { output: output as StandardSchemaV1 }),
    signals: bySignal,
    ...(upgrade === undefined ? {} : { upgrade: upgrade as (raw: unknown) => unknown }),
  };
}

/** A second definition of a queue in one process must check its values the same way. */
function refuseOtherSchemas(earlier: QueueSchemas, now: QueueSchemas): void {
  const differs = (field: string, a: unknown, b: unknown) => {
    if (a !== b)
      throw new InvalidOptionError(field, "the same schema as the queue's earlier definition here", b);
  };
  differs('input', earlier.input, now.input);
  differs('output', earlier.output, now.output);
  for (const signal of new Set([...Object.keys(earlier.signals), ...Object.keys(now.signals)])) {
    differs(`signals.${signal}.schema`, earlier.signals[signal], now.signals[signal]);
  }
}

function mailboxesOf(signals: SignalDeclarations): Record<string, number> {
  return Object.fromEntries(
    Object.entries(signals).map(([name, declaration]) => [name, declaration.mailbox]),
  );
}

/** The handler, with the stored data checked (or repaired) first and the output checked last. */
function checkedHandler(queue: string, schemas: QueueSchemas, handler: Handler): Handler {
  const hasSignalSchemas = Object.keys(schemas.signals).length > 0;
  return async (job, ctx) => {
    if (schemas.input) job.data = await claimedData(queue, schemas, schemas.input, job.data);
    const output = await handler(job, hasSignalSchemas ? checkedSignals(queue, schemas, ctx) : ctx);
    return checkedBy(schemas.output, output, queue, 'output');
  };
}

async function claimedData(
  queue: string,
  schemas: QueueSchemas,
  input: StandardSchemaV1,
  stored: unknown,
): Promise<unknown> {
  const checked = await validate(input, stored);
  if (checked.ok) return checked.value;
  if (schemas.upgrade) {
    const repaired = await validate(input, await schemas.upgrade(stored));
    if (repaired.ok) return repaired.value;
  }
  throw new JobValidationError(queue, 'data', checked.issues);
}

/** The context, its signal payloads checked by their schemas as they are delivered. */
function checkedSignals(queue: string, schemas: QueueSchemas, ctx: JobContext): JobContext {
  const payloadOf = (name: string, payload: unknown) =>
    checkedBy(schemas.signals[name], payload, queue, `signal '${name}'`);
  const one = async (result: SignalResult): Promise<SignalResult> =>
    result.timedOut ? result : { ...result, payload: await payloadOf(result.name, result.payload) };
  // Every call goes to the context itself: it keeps the run's state (names, suspension).
  return {
    get signal() {
      return ctx.signal;
    },
    job: ctx.job,
    step: (name, fn) => ctx.step(name, fn),
    sleep: (name, seconds) => ctx.sleep(name, seconds),
    runChild: (queue, data, options) => ctx.runChild(queue, data, options),
    createToken: (name, options) => ctx.createToken(name, options),
    waitForToken: (token) => ctx.waitForToken(token),
    patched: (name) => ctx.patched(name),
    completionTx: (fn) => ctx.completionTx(fn),
    dependencies: () => ctx.dependencies(),
    retryAfter: (seconds, options) => ctx.retryAfter(seconds, options),
    progress: (value) => ctx.progress(value),
    get metadata() {
      return ctx.metadata;
    },
    get log() {
      return ctx.log;
    },
    waitForSignal: async (name, options) => one(await ctx.waitForSignal(name, options)),
    waitForAny: async (names, options) => one(await ctx.waitForAny(names, options)),
    waitForSignals: async (name, count, options) => {
      const result = await ctx.waitForSignals(name, count, options);
      if (result.timedOut) return result;
      const payloads: unknown[] = [];
      for (const payload of result.payloads) payloads.push(await payloadOf(name, payload));
      return { timedOut: false, payloads };
    },
  };
}

/** A signal's payload as the queue's schema for it gives it back; JobValidationError when refused. */
export async function checkedSignalPayload(
  core: EngineCore,
  queue: string,
  name: string,
  payload: unknown,
): Promise<unknown> {
  return checkedBy(
    core.registry.localQueue(queue)?.schemas?.signals[name],
    payload,
    queue,
    `signal '${name}'`,
  );
}
