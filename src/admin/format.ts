/** Display helpers: short, unambiguous, UTC. */

export function formatTime(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  if (date.getTime() >= 8.64e15) return 'never';
  return `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** "in 3 h", "12 min ago". */
export function relativeTime(value: Date | null | undefined, now = Date.now()): string {
  // The far-future sentinel ('infinity': no timer) is not a time to count down to.
  if (!value || Math.abs(value.getTime()) >= 8.64e15) return '';
  const seconds = (value.getTime() - now) / 1000;
  const text = formatSeconds(Math.abs(seconds));
  return seconds >= 0 ? `in ${text}` : `${text} ago`;
}

export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '∞';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

/** A retention window: seconds as days/hours, or "kept forever". */
export function formatWindow(seconds: number | undefined): string {
  if (seconds === undefined || seconds === 0) return 'kept forever';
  const exact = exactUnit(seconds);
  return exact.endsWith(' s') ? exact : `${exact} (${seconds.toLocaleString('en-US')} s)`;
}

/** The largest unit that divides the window exactly: 604800 → "7 d", 5400 → "90 min". */
function exactUnit(seconds: number): string {
  for (const [size, unit] of [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}`;
  }
  return seconds >= 7200 ? formatSeconds(seconds) : `${seconds.toLocaleString('en-US')} s`;
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return Math.round(n).toLocaleString('en-US');
}

/** 1234567 → "1.2M": for estimates, where more digits would claim a precision they lack. */
export function formatApprox(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(n));
}
