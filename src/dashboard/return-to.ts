/** Longer `next` values are not followed: no page of the dashboard needs one. */
const MAX_NEXT_LENGTH = 2_000;
const PROBE_ORIGIN = 'http://dashboard.invalid';

/**
 * Where a login sends the browser: `next` when it is a path of this dashboard (under `base`,
 * on this origin), else the front page. Anything that a browser could read as another host
 * (`//host`, `/\host`, a scheme), a control character, or a dot segment that climbs out of
 * `base` sends it to the front page instead, so the login form cannot be used to redirect
 * anywhere else.
 */
export function returnTarget(base: string, next: string | null | undefined): string {
  const home = `${base}/`;
  if (!next || next.length > MAX_NEXT_LENGTH || !next.startsWith(home)) return home;
  // Browsers strip tabs and newlines from URLs and read '\' as '/': refuse them all outright.
  if (next.includes('\\') || hasControlCharacter(next)) return home;
  const path = next.split(/[?#]/, 1)[0];
  if (path.includes('//')) return home;
  let parsed: URL;
  try {
    parsed = new URL(next, PROBE_ORIGIN);
  } catch {
    return home;
  }
  if (parsed.origin !== PROBE_ORIGIN || !parsed.pathname.startsWith(home)) return home;
  if (parsed.pathname === `${base}/login`) return home;
  return `${parsed.pathname}${parsed.search}`;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The login page's address, naming the page to come back to (none for the front page). */
export function loginLocation(base: string, requested: string): string {
  const target = returnTarget(base, requested);
  return target === `${base}/` ? `${base}/login` : `${base}/login?next=${encodeURIComponent(target)}`;
}
