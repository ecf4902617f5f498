import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Query } from '../../src/storage/sql/define-query.js';

/** Found from here, so that a compiled run (scripts/compile-tests.mjs) reads its own modules. */
const SQL_DIR = new URL('../../src/storage/sql/', import.meta.url);
/** The batch size a sized statement is prepared with (the engine's default). */
const SIZE = 1_000;

type Sized = ((size: number) => Query<Record<string, unknown>>) & { sized: true };

function isQuery(value: unknown): value is Query<Record<string, unknown>> {
  const q = value as Query<Record<string, unknown>> | null;
  return !!q && typeof q === 'object' && typeof q.text === 'function' && Array.isArray(q.paramNames);
}

function isSized(value: unknown): value is Sized {
  return typeof value === 'function' && (value as Partial<Sized>).sized === true;
}

/** Every statement the engine runs, by file and export name, in a stable order. */
export async function everyQuery(): Promise<{ id: string; query: Query<Record<string, unknown>> }[]> {
  const found: { id: string; query: Query<Record<string, unknown>> }[] = [];
  for (const file of readdirSync(fileURLToPath(SQL_DIR))
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const module = (await import(new URL(file.replace(/\.ts$/, '.js'), SQL_DIR).href)) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(module).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (isQuery(value)) found.push({ id: `${file}#${name}`, query: value });
      else if (isSized(value)) found.push({ id: `${file}#${name}(${SIZE})`, query: value(SIZE) });
    }
  }
  return found;
}
