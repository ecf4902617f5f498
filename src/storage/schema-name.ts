import { InvalidOptionError } from '../errors.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/** Schema names are lowercase identifiers, so they quote simply and name a NOTIFY channel. */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new InvalidOptionError(
      'schema',
      'a lowercase identifier of 1-40 characters ([a-z_][a-z0-9_]*)',
      schema,
    );
  }
  return schema;
}

/** Replace the `/*schema*\/` marker with the quoted schema name. */
export function bindSchema(text: string, schema: string): string {
  return text.replaceAll('/*schema*/', `"${schema}".`);
}

/** The NOTIFY channel of a schema (lowercase: PGlite lowercases channel names). */
export function channelOf(schema: string): string {
  return `tidemark_${schema}`;
}
