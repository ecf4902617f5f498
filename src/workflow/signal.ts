import { InvalidOptionError } from '../errors.js';
import type { AuditOptions } from '../model/audit.js';
import { checkId, checkObject, checkString } from '../options/check.js';
import { toJsonText } from '../options/json.js';
import { type CallerTransaction, type Queryable, wrapCallerTransaction } from '../storage/storage.js';

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

/** Options of `tm.signal`: an operator's `actor`/`source` (audited), or the transaction to write in. */
export interface SignalOptions extends AuditOptions {
  /**
   * Your transaction (a `pg` client inside BEGIN, a PGlite transaction, or an adapter's
   * `fromKysely(trx)`...): the signal is stored in it, and its job woken only if it commits.
   */
  tx?: CallerTransaction;
}

/**
 * `tm.signal`'s options split into the transaction to write in (its own `tx`, else the one of
 * `withTransaction` given by `joined`) and the audit fields (undefined for an application's
 * signal, which is not audited). An audited signal is recorded in a transaction of its own, so
 * it cannot also be written in the caller's: refused, naming `options.tx`.
 */
export function splitSignalOptions(
  options: SignalOptions | undefined,
  joined: (own: CallerTransaction | undefined) => CallerTransaction | undefined,
): { on: Queryable | undefined; audit: AuditOptions | undefined } {
  if (options === undefined) return { on: wrapped(joined(undefined)), audit: undefined };
  const record = checkObject(options, 'options');
  const { tx: own, ...rest } = record as SignalOptions;
  // `{}` is audited (the api as actor), as it was before `tx`; `{ tx }` alone is not, even
  // when it is undefined (an optional transaction passed through).
  const audit = Object.hasOwn(record, 'tx') && Object.keys(rest).length === 0 ? undefined : rest;
  const tx = joined(own);
  if (tx !== undefined && audit !== undefined) {
    throw new InvalidOptionError(
      'options.tx',
      own === undefined
        ? "no actor or source inside tm.withTransaction: an operator's signal is audited in a transaction of its own and cannot join the ambient one"
        : "no transaction beside actor or source: an operator's signal is audited in a transaction of its own",
      tx,
    );
  }
  return { on: wrapped(tx), audit };
}

function wrapped(tx: CallerTransaction | undefined): Queryable | undefined {
  return tx === undefined ? undefined : wrapCallerTransaction(tx);
}
