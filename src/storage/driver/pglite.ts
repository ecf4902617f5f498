import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite, PGliteOptions, Transaction } from '@electric-sql/pglite';
import { TransactionMisuseError } from '../../errors.js';
import type { Driver, QueryResult, Statement, Subscription, TransactionHandle } from './driver.js';
import { lockFolder } from './folder-lock.js';

/** The OID of int8; ids come back as strings on both drivers. */
const INT8_OID = 20;

/**
 * Applied to every statement too, because an instance the caller passes in (`wrap`) was
 * made without our parser and would return int8 as a number (or a BigInt past 2^53).
 */
const QUERY_OPTIONS = { parsers: { [INT8_OID]: (value: string) => value } };

export interface PgliteDriverOptions {
  /**
   * Sync the write-ahead log on every commit (`wal_sync_method=open_datasync`). Survives power
   * loss of committed work at about half the commit rate. Off by default: a process crash
   * loses no acknowledged commit either way.
   */
  strictDurability?: boolean;
}

/**
 * PGlite driver. One instance is one session: statements run one at a time, which is
 * what keeps in-process workers apart. Using the instance directly inside one of its own
 * transactions would deadlock it forever, so that is refused with a clear error.
 */
export class PgliteDriver implements Driver {
  readonly kind = 'pglite' as const;
  private readonly inTransaction = new AsyncLocalStorage<boolean>();
  private closed = false;

  private constructor(
    readonly db: PGlite,
    private readonly owned: boolean,
    private readonly releaseLock: () => Promise<void>,
  ) {}

  /** Open `memory://` or a folder path. */
  static async open(location: string, options: PgliteDriverOptions = {}): Promise<PgliteDriver> {
    const { PGlite } = await import('@electric-sql/pglite');
    const memory = location === 'memory://' || location === ':memory:';
    const lock = memory ? null : await lockFolder(location);
    const release = lock ? lock.release : async () => {};
    try {
      const startParams = [...PGlite.defaultStartParams];
      const pgliteOptions: PGliteOptions = { parsers: { [INT8_OID]: (value: string) => value } };
      if (memory) {
        // WAL lives in memory for an in-memory instance; keep it small.
        pgliteOptions.initDbStartParams = ['--wal-segsize=1'];
        startParams.push('-c', 'min_wal_size=4MB', '-c', 'max_wal_size=16MB');
      }
      if (options.strictDurability) {
        const index = startParams.indexOf('-F');
        if (index >= 0) startParams.splice(index, 1);
        startParams.push('-c', 'wal_sync_method=open_datasync');
      }
      pgliteOptions.startParams = startParams;
      const db = lock ? await PGlite.create(lock.path, pgliteOptions) : await PGlite.create(pgliteOptions);
      return new PgliteDriver(db, true, release);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** Wrap an instance the caller owns; `close()` leaves it open. */
  static wrap(db: PGlite): PgliteDriver {
    return new PgliteDriver(db, false, async () => {});
  }

  async query<Row>(
    statement: string | Statement,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    this.refuseInsideTransaction();
    const text = typeof statement === 'string' ? statement : statement.text;
    const result = await this.db.query<Row>(text, params as unknown[], QUERY_OPTIONS);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  async exec(script: string): Promise<void> {
    this.refuseInsideTransaction();
    await this.db.exec(script);
  }

  async transaction<T>(fn: (tx: TransactionHandle) => Promise<T>): Promise<T> {
    this.refuseInsideTransaction();
    return this.inTransaction.run(true, () =>
      this.db.transaction(async (tx: Transaction) => {
        const handle: TransactionHandle = {
          async query<Row>(statement: string | Statement, params: readonly unknown[] = []) {
            const text = typeof statement === 'string' ? statement : statement.text;
            const result = await tx.query<Row>(text, params as unknown[], QUERY_OPTIONS);
            return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
          },
          async exec(script: string) {
            await tx.exec(script);
          },
        };
        return fn(handle);
      }),
    );
  }

  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReady?: () => void,
  ): Promise<Subscription> {
    this.refuseInsideTransaction();
    const unlisten = await this.db.listen(channel, onMessage);
    onReady?.();
    return {
      close: async () => {
        if (!this.db.closed) await unlisten();
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.owned) await this.db.close();
    } finally {
      await this.releaseLock();
    }
  }

  private refuseInsideTransaction(): void {
    if (this.inTransaction.getStore()) throw new TransactionMisuseError();
  }
}
