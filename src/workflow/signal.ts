import { checkId, checkString } from '../options/check.js';
import { toJsonText } from '../options/json.js';

/** What `tm.signal` resolves to: stored, or refused (nothing stored) with the reason. */
export type SignalDelivery = { delivered: true } | { delivered: false; reason: string };

/** A checked `tm.signal(jobId, name, payload)` call: the payload as JSON text. */
export interface SignalRequest {
  jobId: string;
  name: string;
  payload: string;
}

/** Check `tm.signal`'s arguments before anything is read. */
export function checkSignalRequest(jobId: string, name: string, payload: unknown): SignalRequest {
  return {
    jobId: checkId(jobId, 'jobId'),
    name: checkString(name, 'name'),
    payload: toJsonText(payload, 'payload'),
  };
}
