/** The result of one statement, the same shape on both drivers. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/**
 * Rows a client returned untyped, as the result of a statement whose columns give `Row`
 * (statements name their row type once, beside their SQL: see sql/define-query.ts).
 */
export function resultOf<Row>(rows: unknown[], rowCount: number): QueryResult<Row> {
  return { rows: rows as Row[], rowCount };
}

/**
 * A statement's parameters as the client libraries take them: a mutable array, which they only
 * read. Passed as given rather than copied, since every statement goes through here.
 */
export function clientParams(params: readonly unknown[]): unknown[] {
  return params as unknown[];
}

/** A statement with an optional name; named statements may be prepared once per connection. */
export interface Statement {
  text: string;
  name?: string;
}

/** Anything that runs one parameterised statement: the pool, a transaction, a caller's transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(
    statement: string | Statement,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
}

/** A statement's result and the moment it was handed to the database (`performance.now()`). */
export interface TimedResult<Row> extends QueryResult<Row> {
  sentAt: number;
}

/** A transaction handle: statements plus multi-statement scripts (used by migrations). */
export interface TransactionHandle extends Queryable {
  exec(script: string): Promise<void>;
}

export interface Subscription {
  close(): Promise<void>;
}

/**
 * The thin seam between Tidemark and a database client. Two implementations exist:
 * node-postgres and PGlite. Everything above this uses the same SQL on both.
 */
export interface Driver extends Queryable {
  readonly kind: 'node-postgres' | 'pglite';
  /** Several statements, no parameters. */
  exec(script: string): Promise<void>;
  /**
   * One statement, committed on its own as `query` runs it, and the moment it was handed to the
   * database: after any wait for a pooled connection or, on PGlite, for the statements ahead of
   * it. What happened in the database is no earlier than that, whenever its answer is read.
   */
  queryTimed<Row = Record<string, unknown>>(
    statement: Statement,
    params: readonly unknown[],
  ): Promise<TimedResult<Row>>;
  /** BEGIN … COMMIT on one connection; ROLLBACK when `fn` throws. `fn` must use `tx`, never the driver. */
  transaction<T>(fn: (tx: TransactionHandle) => Promise<T>): Promise<T>;
  /**
   * Deliver NOTIFYs on `channel` (lowercase). `onReady` runs after every (re)subscription so the
   * caller can poll for anything it missed while disconnected. `onProbe` gets, after each
   * (re)subscription, whether a notification sent through the driver's pool reached the
   * listening connection (false behind a pooler in transaction mode, which drops them).
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReady?: () => void,
    onProbe?: (delivers: boolean) => void,
  ): Promise<Subscription>;
  close(): Promise<void>;
}
