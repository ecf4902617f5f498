import type { ServerResponse } from 'node:http';

/** How many token guesses one address gets. */
export interface ThrottleLimits {
  /** Wrong tokens an address may show per window; past them even the right one waits for the window's end. */
  maxFailures: number;
  /** The window, counted from the address's first wrong token in it. */
  windowMs: number;
  /**
   * Addresses counted apart at once. Past this, further addresses share one count, so a flood of
   * addresses neither grows memory nor pushes out the count of an address already refused.
   */
  maxAddresses: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = {
  maxFailures: 10,
  windowMs: 15 * 60_000,
  maxAddresses: 10_000,
};

/** The shared count of the addresses that arrive while the table is full. */
const OVERFLOW = '(overflow)';

interface Window {
  startedAt: number;
  failures: number;
}

/**
 * Wrong tokens per client address (login form and Bearer header alike), in fixed windows:
 * after `maxFailures` wrong tokens the address is refused until its window ends, without its
 * token being checked. A right token clears nothing, so a client that knows the token and shares
 * the address (a proxy, a NAT) cannot reset the count of one that is guessing.
 */
export class LoginThrottle {
  /** Insertion order is window start order, so expired windows sit at the front. */
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** Milliseconds this address must still wait before a token of its is even checked (0: go ahead). */
  waitMs(address: string | undefined): number {
    const now = this.now();
    const window = this.windows.get(this.keyOf(address, now));
    if (!window || window.failures < this.limits.maxFailures) return 0;
    return Math.max(0, window.startedAt + this.limits.windowMs - now);
  }

  fail(address: string | undefined): void {
    const now = this.now();
    const key = this.keyOf(address, now);
    const window = this.windows.get(key);
    if (window && now < window.startedAt + this.limits.windowMs) {
      window.failures++;
      return;
    }
    this.windows.delete(key);
    this.windows.set(key, { startedAt: now, failures: 1 });
  }

  /** The address's own key, or the shared one when the table is full of live windows. */
  private keyOf(address: string | undefined, now: number): string {
    const key = addressKey(address);
    if (this.windows.has(key)) return key;
    for (const [old, window] of this.windows) {
      if (now < window.startedAt + this.limits.windowMs) break; // the rest started later
      this.windows.delete(old);
    }
    return this.windows.size < this.limits.maxAddresses ? key : OVERFLOW;
  }
}

/**
 * One key per client: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64,
 * so counting single IPv6 addresses would let it rotate through them).
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const plain = address.replace(/%.*$/, '');
  const mapped = plain.match(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i);
  if (mapped) return mapped[1];
  if (!plain.includes(':')) return plain;
  const [head, tail] = plain.toLowerCase().split('::', 2);
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = Math.max(0, 8 - headGroups.length - tailGroups.length);
  const groups = [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The answer to an address that must wait: sets Retry-After (whole seconds, rounded up) and
 * returns the message to show.
 */
export function retryAfter(res: ServerResponse, waitMs: number): string {
  const seconds = Math.ceil(waitMs / 1000);
  res.setHeader('retry-after', String(seconds));
  return `Too many wrong tokens from this address: try again in ${seconds} s.`;
}
