import type { EngineCore } from '../engine-core.js';
import { checkedBy, type StandardSchemaV1 } from '../model/standard-schema.js';
import { toJsonText } from '../options/json.js';
import type { JobRequest } from './job-request.js';

/**
 * Checked add requests, their data (JSON text) replaced by what each queue's schema gives
 * back, for the queues defined here with an `input` schema; JobValidationError when refused.
 */
export async function validateRequests(core: EngineCore, requests: JobRequest[]): Promise<void> {
  // A lookup per job, and an await only where a schema applies: plain adds stay synchronous.
  for (const { row } of requests) {
    const schema = inputSchema(core, row.queue);
    if (schema) row.dataText = await checkedDataText(schema, row.queue, row.dataText);
  }
}

/** The same for data already held as JSON text (a schedule's): JSON text again. */
export async function validatedDataText(core: EngineCore, queue: string, text: string): Promise<string> {
  const schema = inputSchema(core, queue);
  return schema === undefined ? text : checkedDataText(schema, queue, text);
}

/** The input schema of a queue defined here with one. */
function inputSchema(core: EngineCore, queue: string): StandardSchemaV1 | undefined {
  return core.registry.localQueue(queue)?.schemas?.input;
}

/** JSON text `text` as `schema` gives it back, as JSON text. */
async function checkedDataText(schema: StandardSchemaV1, queue: string, text: string): Promise<string> {
  return toJsonText(await checkedBy(schema, JSON.parse(text), queue, 'data'), 'data');
}
