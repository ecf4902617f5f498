import { createHash } from 'node:crypto';
import { bindSchema } from '../schema-name.js';

/**
 * A named SQL statement with `@name` parameters. The text is compiled once to `$n`
 * placeholders; `bind(schema)` fills the schema marker and gives a statement name for
 * prepared execution. Values are always bound, never spliced into the text.
 */
export interface Query<Params extends Record<string, unknown>> {
  readonly name: string;
  readonly paramNames: readonly (keyof Params & string)[];
  text(schema: string): string;
  /** A prepared-statement name unique to this text: short, because PostgreSQL truncates names at 63 bytes. */
  statementName(schema: string): string;
  values(params: Params): unknown[];
}

export function defineQuery<Params extends Record<string, unknown> = Record<string, never>>(
  name: string,
  sql: string,
): Query<Params> {
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
