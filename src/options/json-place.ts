/*
 * Where a value sits in a JSON payload being copied (options/json.ts): the chain of places from
 * the root down, read back as a path (`data.a.b[3]`) for an error, or as the cycle it closes.
 */

/** Where a value sits in the payload; made into a path such as `data.a.b[3]` for an error only. */
export interface Place {
  parent: Place | null;
  key: string | number;
  /** The array or object found there, once read. */
  value?: object;
}

/** The first place, from the top, holding an array or object that also holds it. */
export function cycleIn(place: Place): Place | null {
  const chain: Place[] = [];
  for (let at: Place | null = place; at !== null; at = at.parent) chain.push(at);
  const above = new Set<object>();
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = chain[i].value;
    if (value === undefined) continue;
    if (above.has(value)) return chain[i];
    above.add(value);
  }
  return null;
}

/** The path of `place`, or of its entry `key`: `data.a.b[3]`. */
export function pathOf(place: Place, key?: string | number): string {
  const parts: string[] = key === undefined ? [] : [pathStep(key)];
  for (let at: Place | null = place; at !== null; at = at.parent) {
    parts.push(at.parent === null ? String(at.key) : pathStep(at.key));
  }
  return parts.reverse().join('');
}

function pathStep(key: string | number): string {
  return typeof key === 'number' ? `[${key}]` : `.${key}`;
}
