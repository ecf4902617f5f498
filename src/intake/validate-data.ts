import type { EngineCore } from '../engine-core.js';
import { JobValidationError } from '../errors.js';
import { isObject } from '../model/guards.js';
import { validate } from '../model/standard-schema.js';
import { toJsonText } from '../options/json.js';

/**
 * Job data as its queue's schema gives it back (defaults, coercions applied), when the queue
 * is defined here with an `input` schema; as given otherwise. JobValidationError, with each
 * issue's path, when the schema refuses it: called before anything is written.
 */
export async function validatedData(core: EngineCore, queue: string, data: unknown): Promise<unknown> {
  const schema = core.registry.localQueue(queue)?.schemas?.input;
  if (schema === undefined) return data;
  const checked = await validate(schema, data);
  if (!checked.ok) throw new JobValidationError(queue, 'data', checked.issues);
  return checked.value;
}

/**
 * `tm.addJobs` inputs with each job's data validated by its queue's schema: copies where a
 * schema applies, the inputs themselves elsewhere. Anything malformed is passed on as it is,
 * for the intake's own checks to name.
 */
export async function validatedInputs<T>(core: EngineCore, inputs: T[]): Promise<T[]> {
  if (!Array.isArray(inputs)) return inputs;
  let out: T[] | null = null;
  for (let i = 0; i < inputs.length; i++) {
    const input: unknown = inputs[i];
    if (!isObject(input) || typeof input.queue !== 'string') continue;
    if (core.registry.localQueue(input.queue)?.schemas?.input === undefined) continue;
    const data = await validatedData(core, input.queue, input.data);
    out ??= [...inputs];
    out[i] = { ...input, data } as T;
  }
  return out ?? inputs;
}

/** The same for data already held as JSON text (a schedule's): JSON text again. */
export async function validatedDataText(core: EngineCore, queue: string, text: string): Promise<string> {
  if (core.registry.localQueue(queue)?.schemas?.input === undefined) return text;
  return toJsonText(await validatedData(core, queue, JSON.parse(text)), 'data');
}
