/**
 * PostgreSQL text cannot hold a NUL character, so a NUL anywhere in a request would reach the
 * database only to fail there. The handler checks every part of a request once, where it is
 * parsed, and answers 400 with the message this returns (undefined: no NUL anywhere).
 */
export function nulInRequest(pathname: string, query: URLSearchParams): string | undefined {
  for (const raw of pathname.split('/')) {
    const segment = decoded(raw);
    if (segment.includes('\0')) return `The path segment ${shown(segment)} holds a NUL character.`;
  }
  return nulInFields(query, 'query parameter');
}

/** The same check for a posted form's fields. */
export function nulInForm(form: URLSearchParams): string | undefined {
  return nulInFields(form, 'form field');
}

function nulInFields(fields: URLSearchParams, kind: string): string | undefined {
  for (const [name, value] of fields) {
    if (name.includes('\0')) return `A ${kind} name (${shown(name)}) holds a NUL character.`;
    if (value.includes('\0')) return `The ${kind} "${name}" holds a NUL character.`;
  }
  return undefined;
}

/** A path segment as the routes see it; a broken encoding is left to them (a 404). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A text with its NUL characters written out, so the message shows where they were. */
function shown(text: string): string {
  return JSON.stringify(text);
}
