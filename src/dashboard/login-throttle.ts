/** How a dashboard slows down token guessing from one address. */
export interface ThrottleLimits {
  /** Wrong tokens an address may show before it has to wait. */
  freeFailures: number;
  /** The first wait; each further wrong token doubles it. */
  firstDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
  /** An address that shows no wrong token for this long starts afresh. */
  forgetAfterMs: number;
  /** Addresses remembered at once, so a flood of addresses cannot exhaust memory. */
  maxAddresses: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = {
  freeFailures: 5,
  firstDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  forgetAfterMs: 60 * 60_000,
  maxAddresses: 10_000,
};

interface Entry {
  failures: number;
  lastFailure: number;
  blockedUntil: number;
}

/**
 * Wrong tokens per client address (login form and Bearer header alike). After
 * `freeFailures` of them the address must wait before its next try, the wait doubling
 * with each further wrong token up to `maxDelayMs`; a right token clears the record.
 */
export class LoginThrottle {
  /** Insertion order is the order of last failure, oldest first. */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Milliseconds this address must still wait before a token of its is even checked (0: go ahead). */
  waitMs(address: string | undefined): number {
    const entry = this.entries.get(addressKey(address));
    return entry ? Math.max(0, entry.blockedUntil - this.now()) : 0;
  }

  fail(address: string | undefined): void {
    const key = addressKey(address);
    const now = this.now();
    const previous = this.entries.get(key);
    const failures =
      previous && now - previous.lastFailure < this.limits.forgetAfterMs ? previous.failures + 1 : 1;
    const over = failures - this.limits.freeFailures;
    const delay =
      over < 0 ? 0 : Math.min(this.limits.firstDelayMs * 2 ** Math.min(over, 40), this.limits.maxDelayMs);
    this.entries.delete(key);
    if (this.entries.size >= this.limits.maxAddresses) this.makeRoom(now);
    this.entries.set(key, { failures, lastFailure: now, blockedUntil: now + delay });
  }

  succeed(address: string | undefined): void {
    this.entries.delete(addressKey(address));
  }

  private makeRoom(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.lastFailure >= this.limits.forgetAfterMs) this.entries.delete(key);
      else break; // the rest failed more recently
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size < this.limits.maxAddresses) break;
      this.entries.delete(key);
    }
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
