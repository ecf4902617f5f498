import { InvalidOptionError } from '../../errors.js';

/**
 * A statement with `$n` parameters rewritten for `knex.raw(sql, bindings)`: each `$n` outside
 * quotes and comments becomes `?`, with its value appended to the bindings once per use (so
 * `$1` used twice is bound twice, and `$10` is never read as `$1`), and every `?` of the text
 * itself (the jsonb operators `?`, `?|`, `?&`, a `?` in a literal) is escaped as `\?`, which
 * Knex passes through as `?`.
 */
export function toKnexBindings(
  text: string,
  params: readonly unknown[],
): { sql: string; bindings: unknown[] } {
  const bindings: unknown[] = [];
  let sql = '';
  let i = 0;
  const copyUntil = (end: number) => {
    const part = text.slice(i, end);
    // Knex drops every backslash of a run before a `?` (positionBindings), so `\?` in the text
    // cannot pass through unchanged: refused rather than sent altered.
    if (part.includes('\\?')) {
      throw new InvalidOptionError(
        'text',
        'a statement without a backslash before ? (Knex cannot pass one)',
        part,
      );
    }
    sql += part.replaceAll('?', '\\?');
    i = end;
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "'") copyUntil(quotedEnd(text, i, "'", escapesWithBackslash(text, i)));
    else if (c === '"') copyUntil(quotedEnd(text, i, '"', false));
    else if (c === '-' && next === '-') copyUntil(lineEnd(text, i));
    else if (c === '/' && next === '*') copyUntil(blockCommentEnd(text, i));
    else if (c === '$' && isDigit(next) && !isWordChar(text[i - 1])) {
      let end = i + 1;
      while (isDigit(text[end])) end++;
      const index = Number(text.slice(i + 1, end)) - 1;
      if (index >= params.length) {
        throw new InvalidOptionError('params', `a value for $${index + 1}`, params.length);
      }
      bindings.push(params[index]);
      sql += '?';
      i = end;
    } else if (c === '$' && !isWordChar(text[i - 1])) {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i))?.[0];
      if (tag === undefined) copyUntil(i + 1);
      else {
        const close = text.indexOf(tag, i + tag.length);
        copyUntil(close < 0 ? text.length : close + tag.length);
      }
    } else copyUntil(i + 1);
  }
  return { sql, bindings };
}

/** The index after the quote that closes the one at `start` (doubled quotes stay inside). */
function quotedEnd(text: string, start: number, quote: string, backslashes: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    if (backslashes && text[i] === '\\') i += 2;
    else if (text[i] === quote && text[i + 1] === quote) i += 2;
    else if (text[i] === quote) return i + 1;
    else i++;
  }
  return text.length;
}

/** An escape string (E'…'): the quote follows a lone E. */
function escapesWithBackslash(text: string, quoteAt: number): boolean {
  return (text[quoteAt - 1] === 'E' || text[quoteAt - 1] === 'e') && !isWordChar(text[quoteAt - 2]);
}

function lineEnd(text: string, start: number): number {
  const end = text.indexOf('\n', start);
  return end < 0 ? text.length : end;
}

/** Block comments nest in PostgreSQL. */
function blockCommentEnd(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (text[i] === '*' && text[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return text.length;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** A character of an identifier: `$1` right after one (`a$1`) is part of a name, not a parameter. */
function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
}
