import type { EngineCore } from '../engine-core.js';
import { LimiterNotFoundError } from '../errors.js';
import { MAX_KEY_LENGTH } from '../intake/job-options.js';
import type { LimiterInfo, LimiterOptions, LimiterStatus } from '../model/limiter.js';
import { checkKnownFields, checkObject, checkString } from '../options/check.js';
import { integer, seconds } from '../options/fields.js';
import { OptionSet } from '../options/option-set.js';

/** The most tokens a limiter's period or burst may hold. */
const MAX_TOKENS = 1_000_000;

/** A limiter's options, declared once: `tm.defineLimiter`'s input. */
export const limiterOptions = new OptionSet(
  'limiter',
  {
    limit: integer(1, MAX_TOKENS, {
      description: 'tokens per period: jobs of cost 1 that may start per `periodSeconds`',
    }),
    periodSeconds: seconds(
      { exclusiveMin: true, max: 31_536_000 },
      { description: 'the period the limit is for, in seconds (at most a year)' },
    ),
    burst: integer(0, MAX_TOKENS, {
      default: 0,
      description:
        'tokens a full bucket holds beyond one: so many more jobs may start at once after a quiet spell; any span of one period starts at most `limit + burst`. `0` spaces starts evenly',
    }),
  },
  ['limit', 'periodSeconds'],
);

/** A limiter's name: the same rules as a queue's. */
function checkName(name: unknown): string {
  return checkString(name, 'name');
}

/** `tm.defineLimiter`: make a limiter, or change one (its buckets keep their state). */
export async function defineLimiter(core: EngineCore, name: unknown, options: LimiterOptions): Promise<void> {
  const checkedName = checkName(name);
  const read = limiterOptions.read(options, 'options');
  await core.storage.limiters.defineLimiter(checkedName, {
    limit: read.limit,
    periodSeconds: read.periodSeconds,
    burst: read.burst,
  });
}

/**
 * `tm.deleteLimiter`: delete a limiter and its buckets. Jobs of queues that still name it fail
 * with LimiterNotFoundError when they are claimed. False when it did not exist.
 */
export async function deleteLimiter(core: EngineCore, name: unknown): Promise<boolean> {
  return core.storage.limiters.deleteLimiter(checkName(name));
}

/** `tm.listLimiters`: every limiter, by name. */
export async function listLimiters(core: EngineCore): Promise<LimiterInfo[]> {
  return core.storage.limiters.listLimiters();
}

/** What `tm.limiterStatus` takes. */
export interface LimiterStatusOptions {
  /** The bucket's key, for a limiter a queue names with `key`; none: its bucket without a key. */
  key?: string;
}

/** `tm.limiterStatus`: one bucket now; LimiterNotFoundError when the limiter does not exist. */
export async function limiterStatus(
  core: EngineCore,
  name: unknown,
  options: LimiterStatusOptions = {},
): Promise<LimiterStatus> {
  const checkedName = checkName(name);
  const read = checkObject(options, 'options');
  checkKnownFields(read, 'options', ['key']);
  const key = read.key === undefined ? '' : checkString(read.key, 'options.key', { max: MAX_KEY_LENGTH });
  const status = await core.storage.limiters.limiterStatus(checkedName, key);
  if (!status) throw new LimiterNotFoundError(checkedName);
  return status;
}
