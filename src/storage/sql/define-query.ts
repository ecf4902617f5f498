import { createHash } from 'node:crypto';
import { bindSchema } from '../schema-name.js';

/** The parameters of a statement that takes none. */
export type NoParams = Record<string, never>;

/** The row type of a statement that returns no rows (no RETURNING, no SELECT). */
export type NoRows = never;

/**
 * A named SQL statement with `@name` parameters and the rows it returns. The text is compiled
 * once to `$n` placeholders; `text(schema)` fills the schema marker and `statementName` names it
 * for prepared execution. Values are always bound, never spliced into the text. `Params` and
 * `Row` are declared once, where the SQL is, and `Runner.run` takes the one and returns the
 * other: `Row` says what the statement returns on both drivers (bigint, and so count(*)
 * unless cast to int, arrives as a string; timestamps as Date; json as parsed values).
 */
export interface Query<Params extends Record<string, unknown>, Row = unknown> {
  /**
   * Never set: it exists for the type checker alone, so that a query's rows cannot be read
   * as another type (without it `Row` would be unused, and any two queries with the same
   * parameters would be interchangeable).
   */
  readonly rowType?: Row;
  readonly name: string;
  readonly paramNames: readonly (keyof Params & string)[];
  text(schema: string): string;
  /** A prepared-statement name unique to this text: short, because PostgreSQL truncates names at 63 bytes. */
  statementName(schema: string): string;
  values(params: Params): unknown[];
}

export function defineQuery<Params extends Record<string, unknown>, Row>(
  name: string,
  sql: string,
): Query<Params, Row> {
  const order: string[] = [];
  const compiled = sql.replace(/(?<![@:\w])@([a-zA-Z_][a-zA-Z0-9_]*)/g, (_match, param: string) => {
    let index = order.indexOf(param);
    if (index < 0) {
      order.push(param);
      index = order.length - 1;
    }
    return `$${index + 1}`;
  });
  const bySchema = new Map<string, string>();
  const names = new Map<string, string>();
  return {
    name,
    paramNames: order as (keyof Params & string)[],
    text(schema: string) {
      let text = bySchema.get(schema);
      if (text === undefined) {
        text = bindSchema(compiled, schema);
        bySchema.set(schema, text);
      }
      return text;
    },
    statementName(schema: string) {
      let statement = names.get(schema);
      if (statement === undefined) {
        const digest = createHash('sha1').update(this.text(schema)).digest('hex').slice(0, 16);
        statement = `tm_${name.slice(0, 30)}_${digest}`;
        names.set(schema, statement);
      }
      return statement;
    },
    values(params: Params) {
      return order.map((param) => {
        if (!(param in params)) throw new Error(`query ${name}: parameter @${param} was not supplied`);
        const value = params[param];
        return value === undefined ? null : value;
      });
    },
  };
}

/** A statement made for one batch size: see defineSizedQuery. */
export type SizedQuery<Params extends Record<string, unknown>, Row = unknown> = ((
  batchSize: number,
) => Query<Params, Row>) & {
  readonly sized: true;
};

/** Batch sizes a sized statement is made for: the engine's 1..10000, with room. */
const MAX_SIZED = 100_000;

/**
 * A statement with its batch size written into the text as a number, one prepared statement
 * per size (made on first use, then kept). With `LIMIT $n` PostgreSQL's generic plan guesses
 * a tenth of the table for the limit, is costed far above a custom plan, and so the big
 * batch statements were planned again on every run (1.5 ms of a 6 ms batch). With the limit
 * known, the generic plan is as good and is chosen after five runs. `@batch_size` in `sql`
 * is replaced by the size, a whole number checked here; every other value stays a parameter.
 */
export function defineSizedQuery<Params extends Record<string, unknown>, Row>(
  name: string,
  sql: string,
): SizedQuery<Params, Row> {
  const bySize = new Map<number, Query<Params, Row>>();
  const forSize = (batchSize: number) => {
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_SIZED) {
      throw new Error(`query ${name}: batch size ${batchSize} is not a whole number from 1 to ${MAX_SIZED}`);
    }
    let query = bySize.get(batchSize);
    if (!query) {
      query = defineQuery<Params, Row>(
        `${name}_${batchSize}`,
        sql.replaceAll('@batch_size', String(batchSize)),
      );
      bySize.set(batchSize, query);
    }
    return query;
  };
  return Object.assign(forSize, { sized: true as const });
}
