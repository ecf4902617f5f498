import { optionsTable } from '../src/options/docs-table.js';
import type { OptionSet } from '../src/options/option-set.js';

/** A marker line, then the table that follows it (its header and every `|` row). */
const BLOCK = /(<!-- options:([a-z-]+) -->\n)(\|.*\n)*/g;

/**
 * The document with each `<!-- options:<id> -->` marker followed by its set's table, as the
 * declaration states it. An unknown id throws.
 */
export function renderOptionTables(
  text: string,
  // biome-ignore lint/suspicious/noExplicitAny: sets of different shapes
  sets: Record<string, OptionSet<any, any>>,
): string {
  return text.replace(BLOCK, (_whole, marker: string, id: string) => {
    const set = sets[id];
    if (!set) throw new Error(`no option set '${id}' (known: ${Object.keys(sets).join(', ')})`);
    return `${marker}${optionsTable(set)}\n`;
  });
}
