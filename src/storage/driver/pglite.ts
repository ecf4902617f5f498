import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { DatabaseFullError, TidemarkError, TransactionMisuseError } from '../../errors.js';
import { holdCallerFolder, pgliteFolder } from './caller-pglite.js';
import { isOutOfSpace, OutOfSpaceStop } from './disk-full.js';
import {
  clientParams,
  type Driver,
  type QueryResult,
  type Statement,
  type Subscription,
  type TimedResult,
  type TransactionHandle,
} from './driver.js';
import { lockFolder } from './folder-lock.js';
import { leaveLockFilesOutOfDumps } from './pglite-dump.js';
import { openInMemory } from './pglite-memory-seed.js';
import { INT8_AS_TEXT, type PgliteDriverOptions, startOptions } from './pglite-options.js';
import { runNamed } from './pglite-prepared.js';
import { unpackSeed } from './pglite-seed.js';

/**
 * Applied to every statement too, because an instance the caller passes in (`wrap`) was
 * made without our parser and would return int8 as a number (or a BigInt past 2^53).
 */
const QUERY_OPTIONS = { parsers: INT8_AS_TEXT };

/** The first byte of a Terminate message, which PGlite answers itself without the backend. */
const TERMINATE = 0x58;

/** No error thrown yet. */
const NOTHING = Symbol('nothing');

/**
 * The drivers whose transaction the running code is inside. One storage for the process, not
 * one per driver: node runs every AsyncLocalStorage a process has used for each promise made
 * after, so a storage per driver made every promise dearer with each engine the process opened.
 */
const insideTransactionOf = new AsyncLocalStorage<ReadonlySet<PgliteDriver>>();

/**
 * PGlite driver. One instance is one session: statements run one at a time, which is
 * what keeps in-process workers apart. Using the instance directly inside one of its own
 * transactions would deadlock it forever, so that is refused with a clear error.
 *
 * A full disk fails a statement with `DatabaseFullError`. When the backend itself gave up on it
 * (it could not write its log), the instance is closed and every later call is refused with
 * `DatabaseFullError` without reaching PGlite, whose next statement would spin forever.
 */
export class PgliteDriver implements Driver {
  readonly kind = 'pglite' as const;
  private closed = false;
  /** PGlite's close after the database stopped for lack of space. */
  private closing: Promise<void> | null = null;

  private constructor(
    readonly db: PGlite,
    private readonly owned: boolean,
    private readonly releaseLock: () => Promise<void>,
    private readonly path: string,
    private readonly outOfSpace: OutOfSpaceStop,
    private readonly prepares: boolean,
  ) {
    this.guardInstance();
  }

  /** Open `memory://` or a folder path. */
  static async open(location: string, options: PgliteDriverOptions = {}): Promise<PgliteDriver> {
    const { PGlite } = await import('@electric-sql/pglite');
    const memory = location === 'memory://' || location === ':memory:';
    const lock = memory ? null : await lockFolder(location);
    const release = lock ? lock.release : async () => {};
    const path = lock ? lock.path : 'memory://';
    const outOfSpace = new OutOfSpaceStop();
    try {
      const pgliteOptions = startOptions(PGlite, options.strictDurability === true, outOfSpace.watchLog);
      if (lock && options.seedSchema !== undefined) await unpackSeed(lock.path, options.seedSchema);
      const db = lock
        ? await PGlite.create(lock.path, pgliteOptions)
        : await openInMemory(PGlite, pgliteOptions, options.seedSchema);
      if (lock) leaveLockFilesOutOfDumps(db);
      await commitClaimsDurably(db);
      return new PgliteDriver(db, true, release, path, outOfSpace, options.preparedStatements !== false);
    } catch (error) {
      await release();
      // PGlite says only that it failed to initialize; its log says why.
      if (outOfSpace.stopped || isOutOfSpace(error)) throw new DatabaseFullError(path, 'open', error);
      throw error;
    }
  }

  /**
   * Wrap an instance the caller owns; `close()` leaves it open. An instance on a folder holds
   * that folder as a path does (`DatabaseLockedError` when another process has it, before any
   * statement), until the instance is closed. Once the database has stopped for lack of space the
   * instance refuses statements, which would spin forever, with `DatabaseFullError`.
   */
  static async wrap(
    db: PGlite,
    options: Pick<PgliteDriverOptions, 'preparedStatements'> = {},
  ): Promise<PgliteDriver> {
    const folder = db.closed ? null : pgliteFolder(db);
    const path = folder === null ? 'memory://' : await holdCallerFolder(db, folder);
    if (folder !== null) leaveLockFilesOutOfDumps(db);
    if (!db.closed) await commitClaimsDurably(db);
    return new PgliteDriver(
      db,
      false,
      async () => {},
      path,
      new OutOfSpaceStop(),
      options.preparedStatements !== false,
    );
  }

  async query<Row>(
    statement: string | Statement,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    this.refuseInsideTransaction();
    this.refuseIfStopped();
    return this.run(this.db, statement, params, false);
  }

  async queryTimed<Row>(statement: Statement, params: readonly unknown[]): Promise<TimedResult<Row>> {
    this.refuseInsideTransaction();
    this.refuseIfStopped();
    // Unprepared (preparedStatements: false), PGlite takes its locks inside its own `query`:
    // the moment is then taken before them, earlier, and so still a bound.
    let sentAt = performance.now();
    const result = await this.run<Row>(this.db, statement, params, false, () => {
      sentAt = performance.now();
    });
    return { ...result, sentAt };
  }

  /**
   * One statement `on` the instance or on one of its transactions: a named statement prepared
   * once on the instance (pglite-prepared.ts) unless preparing is off, anything else as PGlite's
   * `query` runs it. `onSend` is called as a prepared statement is handed to the database.
   */
  private async run<Row>(
    on: PGlite | Transaction,
    statement: string | Statement,
    params: readonly unknown[],
    inTransaction: boolean,
    onSend?: () => void,
  ): Promise<QueryResult<Row>> {
    const text = typeof statement === 'string' ? statement : statement.text;
    const name = this.prepares && typeof statement !== 'string' ? statement.name : undefined;
    try {
      const result =
        name === undefined
          ? await on.query<Row>(text, clientParams(params), QUERY_OPTIONS)
          : await runNamed<Row>({
              db: this.db,
              name,
              text,
              params,
              options: QUERY_OPTIONS,
              inTransaction,
              onSend,
            });
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    } catch (error) {
      throw this.translate(error);
    }
  }

  async exec(script: string): Promise<void> {
    this.refuseInsideTransaction();
    this.refuseIfStopped();
    try {
      await this.db.exec(script);
    } catch (error) {
      throw this.translate(error);
    }
  }

  async transaction<T>(fn: (tx: TransactionHandle) => Promise<T>): Promise<T> {
    this.refuseInsideTransaction();
    this.refuseIfStopped();
    let thrownByFn: unknown = NOTHING;
    try {
      const inside = new Set(insideTransactionOf.getStore()).add(this);
      return await insideTransactionOf.run(inside, () =>
        this.db.transaction(async (tx: Transaction) => {
          try {
            return await fn(this.handle(tx));
          } catch (error) {
            thrownByFn = error;
            throw error;
          }
        }),
      );
    } catch (error) {
      // The callback's own errors pass as they are; those of BEGIN, COMMIT and ROLLBACK are translated.
      throw error === thrownByFn ? error : this.translate(error);
    }
  }

  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReady?: () => void,
    onProbe?: (delivers: boolean) => void,
  ): Promise<Subscription> {
    this.refuseInsideTransaction();
    this.refuseIfStopped();
    let unlisten: () => Promise<void>;
    try {
      unlisten = await this.db.listen(channel, onMessage);
    } catch (error) {
      throw this.translate(error);
    }
    onReady?.();
    // One session: its own notifications always reach it.
    onProbe?.(true);
    return {
      close: async () => {
        if (!this.db.closed && !this.outOfSpace.stopped) await unlisten();
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.closing) await this.closing;
      else if (this.owned) await this.db.close();
    } finally {
      await this.releaseLock();
    }
  }

  private handle(tx: Transaction): TransactionHandle {
    return {
      query: <Row>(statement: string | Statement, params: readonly unknown[] = []) =>
        this.run<Row>(tx, statement, params, true),
      exec: async (script: string) => {
        try {
          await tx.exec(script);
        } catch (error) {
          throw this.translate(error);
        }
      },
    };
  }

  private refuseInsideTransaction(): void {
    if (insideTransactionOf.getStore()?.has(this)) throw new TransactionMisuseError();
  }

  private refuseIfStopped(): void {
    if (this.outOfSpace.stopped) throw this.stop();
  }

  /** A full disk's error as `DatabaseFullError`; a stop closes the instance too. */
  private translate(error: unknown): unknown {
    if (this.outOfSpace.noteError(error)) return this.stop();
    if (error instanceof TidemarkError || !isOutOfSpace(error)) return error;
    return new DatabaseFullError(this.path, 'call', error);
  }

  /** The error for a stopped database; closes an instance this driver owns, once. */
  private stop(): DatabaseFullError {
    // Measured: close() after the PANIC returns at once, and the folder opens again later.
    if (this.owned && !this.closing && !this.closed) this.closing = this.db.close().catch(() => {});
    return new DatabaseFullError(this.path, 'stopped', this.outOfSpace.cause);
  }

  /**
   * Every statement PGlite sends, its own included (the Sync after a failed step, the ROLLBACK
   * of a failed transaction), passes through `execProtocolRawSync`: once the database stopped,
   * it is refused there. Terminate still passes, so that close() runs.
   */
  private guardInstance(): void {
    const db = this.db;
    const run = db.execProtocolRawSync.bind(db);
    db.execProtocolRawSync = (message: Uint8Array): Uint8Array => {
      if (this.outOfSpace.stopped && message[0] !== TERMINATE) {
        throw new DatabaseFullError(this.path, 'stopped', this.outOfSpace.cause);
      }
      return run(message);
    };
  }
}

/**
 * The database runs inside this process and dies with it: claims and heartbeats commit
 * durably on this session (see ASYNC_COMMIT in sql/worker.ts), so a killed worker's attempt
 * still counts. One session serves the whole instance.
 */
async function commitClaimsDurably(db: PGlite): Promise<void> {
  await db.exec("set tidemark.durable_claims = 'on'");
}
