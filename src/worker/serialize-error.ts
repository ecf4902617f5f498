import type { JobError } from '../storage/rows.js';

/** A thrown value as JSON text for the job's `error` column: name, message, stack, code. */
export function serializeError(error: unknown): string {
  const out: JobError =
    error instanceof Error
      ? { name: error.name, message: error.message, stack: error.stack }
      : { name: 'NonError', message: typeof error === 'string' ? error : safeString(error) };
  if (error && typeof error === 'object') {
    for (const key of ['code', 'field', 'details'] as const) {
      const value = (error as Record<string, unknown>)[key];
      if (value !== undefined) out[key] = value;
    }
  }
  try {
    return JSON.stringify(out);
  } catch {
    return JSON.stringify({ name: out.name, message: out.message, stack: out.stack });
  }
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Throw this from a handler to fail the job at once, without further attempts. */
export class NonRetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}
