import { PermissionDeniedError } from '../errors.js';
import { isPermissionDenied, sqlState } from './database-errors.js';
import type { Driver, Queryable, TimedResult } from './driver/driver.js';
import { channelOf } from './schema-name.js';
import type { Query } from './sql/define-query.js';

/**
 * One schema on one driver: what every part of the storage layer needs to run its
 * statements from `sql/`, and nothing more.
 */
export class Runner {
  /** The notification channel of this schema. */
  readonly channel: string;

  /** Each query's statement, rewritten (see `rewrite`), made once. */
  private readonly rewritten = new Map<Query<never, unknown>, { text: string; name: string }>();

  /**
   * @param rewrite a change made to every statement's text once its schema is bound: the test
   * kit's clock (sql/test-kit.ts). Without one, statements run as written.
   */
  constructor(
    readonly driver: Driver,
    readonly schema: string,
    readonly rewrite?: (text: string) => string,
  ) {
    this.channel = channelOf(schema);
  }

  /**
   * Run a query on the driver or on a given transaction/caller handle. Its parameter and row
   * types come from the query's definition: call sites name neither. A statement the database
   * refuses to this role (no privilege, a read-only session) is a PermissionDeniedError
   * naming the query, never the bare database error.
   */
  async run<P extends Record<string, unknown>, Row>(
    query: Query<P, Row>,
    params: P,
    on: Queryable = this.driver,
  ): Promise<Row[]> {
    try {
      const result = await on.query<Row>(this.statementOf(query), query.values(params));
      return result.rows;
    } catch (error) {
      throw permissionError(query, error);
    }
  }

  /**
   * Run a query on a connection of its own, and say when it was handed to the database (on
   * this process's clock, `performance.now()`): see `Driver.queryTimed`.
   */
  async runTimed<P extends Record<string, unknown>, Row>(
    query: Query<P, Row>,
    params: P,
  ): Promise<TimedResult<Row>> {
    try {
      return await this.driver.queryTimed<Row>(this.statementOf(query), query.values(params));
    } catch (error) {
      throw permissionError(query, error);
    }
  }

  private statementOf(query: Query<never, unknown>): { text: string; name: string } {
    return this.rewrite
      ? this.rewrittenStatement(query, this.rewrite)
      : { text: query.text(this.schema), name: query.statementName(this.schema) };
  }

  private rewrittenStatement(
    query: Query<never, unknown>,
    rewrite: (text: string) => string,
  ): { text: string; name: string } {
    let statement = this.rewritten.get(query);
    if (statement === undefined) {
      const text = rewrite(query.text(this.schema));
      statement = { text, name: `${query.statementName(this.schema)}_r` };
      this.rewritten.set(query, statement);
    }
    return statement;
  }
}

/** A storage operation: a function of the runner, then of its own arguments. */
type Operation = (db: Runner, ...args: never[]) => unknown;

/** A module's operations with the runner bound: one group of the Storage door. */
export type Operations<M> = {
  [K in keyof M as M[K] extends Operation ? K : never]: M[K] extends (db: Runner, ...args: infer A) => infer R
    ? (...args: A) => R
    : never;
};

/**
 * Bind every operation of a module (its exported functions, each taking the runner first) to
 * one runner. A module that is a group of the door exports operations and types only. The
 * group stays writable so a fault test can wrap one operation.
 */
export function operations<M extends object>(db: Runner, module: M): Operations<M> {
  const group: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === 'function') group[name] = (...args: unknown[]) => value(db, ...args);
  }
  return group as Operations<M>;
}

/** A statement the database refused to this role as PermissionDeniedError naming the query; any other error as it is. */
function permissionError(query: Query<never, unknown>, error: unknown): unknown {
  return isPermissionDenied(error)
    ? new PermissionDeniedError(query.name, String(sqlState(error)), error)
    : error;
}
