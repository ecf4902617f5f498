import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionClosedError } from '../errors.js';
import {
  type CallerTransaction,
  checkTransactionCallback,
  wrapCallerTransaction,
} from '../storage/storage.js';

export type { CallerTransaction };

/** One `tm.withTransaction` call: its transaction, joined while its callback runs. */
interface Scope {
  tx: CallerTransaction;
  open: boolean;
}

/**
 * The scope each engine's calls join, for the running code. One storage for the process, not one
 * per engine: node runs every AsyncLocalStorage a process has used for each promise made after,
 * so a storage per engine made every promise dearer with each engine the process opened.
 */
const scopesOf = new AsyncLocalStorage<ReadonlyMap<TransactionScope, Scope>>();

/**
 * The ambient transaction of `tm.withTransaction(tx, fn)`: every add and signal made inside
 * `fn` (through any number of awaits) without a `tx` of its own joins `tx`. One per engine, so
 * a scope opened on one engine never reaches another's calls.
 */
export class TransactionScope {
  /**
   * Run `fn` with `tx` as the ambient transaction; an inner call nests (the innermost wins).
   * The transaction is checked first: a value that cannot run statements is refused before
   * `fn` runs.
   */
  async run<T>(tx: CallerTransaction, fn: () => Promise<T> | T): Promise<T> {
    wrapCallerTransaction(tx);
    checkTransactionCallback(fn);
    const scope: Scope = { tx, open: true };
    try {
      return await scopesOf.run(new Map(scopesOf.getStore()).set(this, scope), fn);
    } finally {
      // A timer or an unawaited promise started in `fn` keeps the scope in its context: once
      // `fn` has settled the app's transaction may be committed and its connection reused, so
      // a late call is refused rather than written in someone else's transaction.
      scope.open = false;
    }
  }

  /**
   * The transaction a call joins: its own `tx` when given (it wins over the scope), else the
   * ambient one, else none. TransactionClosedError when the call comes from a scope that ended.
   */
  joined(own: CallerTransaction | undefined): CallerTransaction | undefined {
    if (own !== undefined) return own;
    const scope = scopesOf.getStore()?.get(this);
    if (scope === undefined) return undefined;
    if (!scope.open) throw new TransactionClosedError();
    return scope.tx;
  }
}
