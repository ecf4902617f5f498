import { isObject } from '../model/guards.js';
import type { JobError } from '../model/job.js';
import { storableJsonReplacer } from '../options/storable-text.js';

/**
 * A thrown value as JSON text for the job's `error` column: name, message, stack, code, field,
 * details. Every string and key is made storable (NUL and unpaired surrogates become U+FFFD):
 * a message about binary input, or one cut in the middle of a character, must not stop the
 * attempt's outcome, or the batch it is written with, from being recorded.
 */
export function serializeError(error: unknown): string {
  let out: JobError;
  try {
    out = describeError(error);
  } catch (readError) {
    // A getter on the thrown value threw (a proxy, say): record that much.
    out = { name: 'NonError', message: `the thrown value could not be read: ${safeString(readError)}` };
  }
  try {
    return JSON.stringify(out, storableJsonReplacer);
  } catch {
    // details that JSON cannot hold (BigInt, a cycle): keep the rest.
    return JSON.stringify({ name: out.name, message: out.message, stack: out.stack }, storableJsonReplacer);
  }
}

function describeError(error: unknown): JobError {
  const out: JobError =
    error instanceof Error
      ? { name: error.name, message: error.message, stack: error.stack }
      : { name: 'NonError', message: typeof error === 'string' ? error : safeString(error) };
  if (isObject(error)) {
    for (const key of ['code', 'field', 'details'] as const) {
      const value = error[key];
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return typeof value;
    }
  }
}

/** Throw this from a handler to fail the job at once, without further attempts. */
export class NonRetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}
