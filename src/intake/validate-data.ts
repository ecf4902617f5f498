import type { EngineCore } from '../engine-core.js';
import { JobValidationError } from '../errors.js';
import { validate } from '../model/standard-schema.js';
import { toJsonText } from '../options/json.js';
import type { JobRequest } from './job-request.js';

/**
 * Job data as its queue's schema gives it back (defaults, coercions applied), when the queue
 * is defined here with an `input` schema; as given otherwise. JobValidationError, with each
 * issue's path, when the schema refuses it: called before anything is written.
 */
async function validatedData(core: EngineCore, queue: string, data: unknown): Promise<unknown> {
  const schema = core.registry.localQueue(queue)?.schemas?.input;
  if (schema === undefined) return data;
  const checked = await validate(schema, data);
  if (!checked.ok) throw new JobValidationError(queue, 'data', checked.issues);
  return checked.value;
}

/**
 * Checked add requests, their data (JSON text) replaced by what each queue's schema gives
 * back, for the queues defined here with an `input` schema; JobValidationError when refused.
 */
export async function validateRequests(core: EngineCore, requests: JobRequest[]): Promise<void> {
  for (const { row } of requests) row.dataText = await validatedDataText(core, row.queue, row.dataText);
}

/** The same for data already held as JSON text (a schedule's): JSON text again. */
export async function validatedDataText(core: EngineCore, queue: string, text: string): Promise<string> {
  if (core.registry.localQueue(queue)?.schemas?.input === undefined) return text;
  return toJsonText(await validatedData(core, queue, JSON.parse(text)), 'data');
}
