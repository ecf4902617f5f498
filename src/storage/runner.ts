import type { Driver, Queryable } from './driver/driver.js';
import { channelOf } from './schema-name.js';
import type { Query } from './sql/define-query.js';

/**
 * One schema on one driver: what every part of the storage layer needs to run its
 * statements from `sql/`, and nothing more.
 */
export class Runner {
  /** The notification channel of this schema. */
  readonly channel: string;

  constructor(
    readonly driver: Driver,
    readonly schema: string,
  ) {
    this.channel = channelOf(schema);
  }

  /**
   * Run a query on the driver or on a given transaction/caller handle. Its parameter and row
   * types come from the query's definition: call sites name neither.
   */
  async run<P extends Record<string, unknown>, Row>(
    query: Query<P, Row>,
    params: P,
    on: Queryable = this.driver,
  ): Promise<Row[]> {
    const result = await on.query<Row>(
      { text: query.text(this.schema), name: query.statementName(this.schema) },
      query.values(params),
    );
    return result.rows;
  }
}

/** A storage operation with its runner bound: what the Storage facade exposes as a method. */
export type Bound<F> = F extends (db: Runner, ...args: infer A) => infer R ? (...args: A) => R : never;

export function bound<F extends (db: Runner, ...args: never[]) => unknown>(
  db: Runner,
  operation: F,
): Bound<F> {
  return ((...args: never[]) => operation(db, ...args)) as Bound<F>;
}
