import { KindGuard, type TProperties } from '@sinclair/typebox';
import { docDefaultOf, fieldMeta } from './fields.js';
import type { OptionSet } from './option-set.js';

/** A markdown table cell: one line, pipes escaped where they are not already. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}

function rows(properties: TProperties, required: readonly string[], prefix: string): string[] {
  const lines: string[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    const name = `${prefix}${key}`;
    const field = fieldMeta(schema);
    if (field.docExpand && KindGuard.IsObject(schema)) {
      lines.push(...rows(schema.properties, schema.required ?? [], `${name}.`));
      continue;
    }
    const fallback = required.includes(key) && !prefix ? 'required' : docDefaultOf(schema);
    lines.push(`| \`${name}\` | ${cell(field.docType)} | ${cell(fallback)} | ${cell(field.description)} |`);
  }
  return lines;
}

/**
 * The docs table of an option set: one row per field (an expanded object's fields each get
 * theirs), with its type, default and meaning as the declaration states them. The table in
 * docs/configuration.md after `<!-- options:<name> -->` is this text (test/docs checks it;
 * `npm run docs:options` writes it).
 */
export function optionsTable<P extends TProperties, R extends keyof P & string>(
  set: OptionSet<P, R>,
): string {
  return [
    '| option | type | default | meaning |',
    '|---|---|---|---|',
    ...rows(set.schema.properties, set.required, ''),
  ].join('\n');
}
