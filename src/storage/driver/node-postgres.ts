import pg from 'pg';
import {
  clientParams,
  type Driver,
  type QueryResult,
  resultOf,
  type Statement,
  type Subscription,
  type TimedResult,
  type TransactionHandle,
} from './driver.js';
import { LISTEN_PROBE_MS, probeDelivery } from './listen-probe.js';

export interface NodePostgresDriverOptions {
  /** Called when a background connection fails (idle pool client, LISTEN client). */
  onError?: (error: unknown) => void;
  /**
   * False: every statement runs unnamed, never prepared on the connection. For a pooler in
   * transaction mode, which hands each transaction a different server connection. Default true.
   */
  preparedStatements?: boolean;
  /** A direct connection string for the LISTEN connection alone; default the pool's own settings. */
  listenUrl?: string;
  /** How long the self-notification probe waits; default 2 s. */
  listenProbeMs?: number;
}

/**
 * node-postgres driver: queries through a pool, LISTEN on one dedicated client that
 * reconnects with backoff and re-subscribes after every loss.
 */
export class NodePostgresDriver implements Driver {
  readonly kind = 'node-postgres' as const;
  private readonly channels = new Map<string, Set<Listener>>();
  private listenClient: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  private reconnectDelayMs = 100;
  /** What the last probe of the listening connection found; null before one finished. */
  private delivers: boolean | null = null;
  private readonly named: boolean;
  private readonly onPoolError = (error: unknown) => {
    if (!this.closed) this.options.onError?.(error);
  };

  constructor(
    readonly pool: pg.Pool,
    private readonly ownsPool: boolean,
    private readonly options: NodePostgresDriverOptions = {},
  ) {
    pool.on('error', this.onPoolError);
    this.named = options.preparedStatements !== false;
  }

  static fromUrl(
    url: string,
    options: NodePostgresDriverOptions & { max?: number } = {},
  ): NodePostgresDriver {
    const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
    return new NodePostgresDriver(pool, true, options);
  }

  async query<Row>(
    statement: string | Statement,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    const result = await this.pool.query(toConfig(statement, params, this.named));
    return resultOf(result.rows, result.rowCount ?? 0);
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  async queryTimed<Row>(statement: Statement, params: readonly unknown[]): Promise<TimedResult<Row>> {
    return this.withClient(async (client) => {
      // A checked-out client is idle: the query is written to its socket at once.
      const sentAt = performance.now();
      const result = await client.query(toConfig(statement, params, this.named));
      return { ...resultOf<Row>(result.rows, result.rowCount ?? 0), sentAt };
    });
  }

  async transaction<T>(fn: (tx: TransactionHandle) => Promise<T>): Promise<T> {
    return this.withClient(async (client, broke) => {
      const named = this.named;
      const handle: TransactionHandle = {
        async query<Row>(statement: string | Statement, params: readonly unknown[] = []) {
          const result = await client.query(toConfig(statement, params, named));
          return resultOf<Row>(result.rows, result.rowCount ?? 0);
        },
        async exec(script: string) {
          await client.query(script);
        },
      };
      try {
        await client.query('begin');
        const value = await fn(handle);
        await client.query('commit');
        return value;
      } catch (error) {
        await client.query('rollback').catch(broke);
        throw error;
      }
    });
  }

  /**
   * Run `fn` on a client of its own, then give the client back. The pool listens for errors
   * only on idle clients: a connection lost while `fn` holds it (server restart,
   * pg_terminate_backend) would otherwise be an uncaught 'error' event that kills the process;
   * `fn`'s next statement rejects instead. A client that broke, or that `fn` reports broken
   * (`broke`: a rollback that failed), is in an unknown state: destroyed rather than reused.
   */
  private async withClient<T>(
    fn: (client: pg.PoolClient, broke: (error: unknown) => void) => Promise<T>,
  ): Promise<T> {
    let broken: unknown;
    const broke = (error: unknown) => {
      broken = error;
    };
    const client = await this.checkOut(broke);
    try {
      return await fn(client, broke);
    } finally {
      client.off('error', broke);
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /**
   * A pool client with `onError` listening from the moment the pool hands it over. Not
   * `await pool.connect()`: a new connection is handed over while its first bytes are read, and
   * an error read in the same chunk (the server terminating it just after it started) would be
   * emitted before an `await` resumes, with no listener, crashing the process.
   */
  private checkOut(onError: (error: unknown) => void): Promise<pg.PoolClient> {
    return new Promise((resolve, reject) => {
      this.pool.connect((error, client) => {
        if (error || !client) {
          reject(error ?? new Error('the pool returned no client'));
          return;
        }
        client.on('error', onError);
        resolve(client);
      });
    });
  }

  async listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReady?: () => void,
    onProbe?: (delivers: boolean) => void,
  ): Promise<Subscription> {
    const listener: Listener = { onMessage, onReady, onProbe };
    let set = this.channels.get(channel);
    const fresh = !set;
    if (!set) {
      set = new Set();
      this.channels.set(channel, set);
    }
    set.add(listener);
    if (this.listenClient && fresh) {
      await this.listenClient.query(`listen ${quoteIdent(channel)}`);
    }
    if (!this.listenClient) await this.connectListener();
    else if (this.delivers !== null) onProbe?.(this.delivers);
    onReady?.();
    return {
      close: async () => {
        set.delete(listener);
        if (set.size === 0) {
          this.channels.delete(channel);
          await this.listenClient?.query(`unlisten ${quoteIdent(channel)}`).catch(() => {});
        }
      },
    };
  }

  private connectListener(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = (async () => {
      const client = new pg.Client(
        this.options.listenUrl ? { connectionString: this.options.listenUrl } : this.pool.options,
      );
      client.on('notification', (message) => {
        for (const listener of this.channels.get(message.channel) ?? [])
          listener.onMessage(message.payload ?? '');
      });
      client.on('error', (error) => {
        this.options.onError?.(error);
        this.dropListener(client);
      });
      client.on('end', () => this.dropListener(client));
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`listen ${quoteIdent(channel)}`);
      this.listenClient = client;
      this.reconnectDelayMs = 100;
      this.delivers = null;
      void this.probe(client);
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /**
   * Send a notification through the pool and wait for it on the listening connection; tell
   * every listener what came of it (after each connect, so after every reconnect too).
   */
  private async probe(client: pg.Client): Promise<void> {
    const delivers = await probeDelivery(
      client,
      (channel, payload) => this.pool.query('select pg_notify($1, $2)', [channel, payload]),
      this.options.listenProbeMs ?? LISTEN_PROBE_MS,
    );
    if (delivers === null || this.listenClient !== client || this.closed) return;
    this.delivers = delivers;
    for (const set of this.channels.values()) for (const listener of set) listener.onProbe?.(delivers);
  }

  private dropListener(client: pg.Client): void {
    if (this.listenClient !== client) return;
    this.listenClient = null;
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.channels.size === 0) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 5_000);
    setTimeout(() => {
      if (this.closed || this.listenClient) return;
      this.connectListener().then(
        () => {
          for (const set of this.channels.values()) for (const listener of set) listener.onReady?.();
        },
        (error) => {
          this.options.onError?.(error);
          this.scheduleReconnect();
        },
      );
    }, delay).unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const client = this.listenClient;
    this.listenClient = null;
    await client?.end().catch(() => {});
    if (this.ownsPool) {
      // A pool we made is ours to the end: its clients can still report a lost connection
      // after end() resolves (a server shutting down tells every session), and an 'error'
      // event with no listener would crash the process. onPoolError ignores them once closed.
      await this.pool.end();
    } else {
      this.pool.off('error', this.onPoolError);
    }
  }
}

interface Listener {
  onMessage: (payload: string) => void;
  onReady?: () => void;
  onProbe?: (delivers: boolean) => void;
}

/** A statement for pg: named (prepared once per connection) only when `named`. */
function toConfig(statement: string | Statement, params: readonly unknown[], named: boolean): pg.QueryConfig {
  if (typeof statement === 'string' || !named) {
    return { text: typeof statement === 'string' ? statement : statement.text, values: clientParams(params) };
  }
  return { text: statement.text, name: statement.name, values: clientParams(params) };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
