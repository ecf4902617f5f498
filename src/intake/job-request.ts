import { createHash } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';
import type { DependencyFailurePolicy } from '../model/dependencies.js';
import { isObject } from '../model/guards.js';
import type { RetentionPolicy } from '../model/retention-policy.js';
import type { ScheduleJobOptions } from '../model/schedule.js';
import type { OptionsOf } from '../options/option-set.js';
import type { InsertRow } from '../storage/storage.js';
import { childOptions, jobOptions, type ReadJobOptions } from './job-options.js';

/** What `tm.addJob` takes: the job options (intake/job-options.ts), with its data typed. */
export type AddJobInput<Data = unknown> = Omit<OptionsOf<typeof jobOptions.properties, 'queue'>, 'data'> & {
  data?: Data;
};

/** What `addJob` resolves to. */
export interface AddJobResult {
  id: string;
  /**
   * True when no job was added: an earlier job held the deduplication key, or took in this
   * add by `debounce` or `throttle`, and its id was returned instead.
   */
  deduplicated: boolean;
  /** With `debounce`: true when the add folded into an earlier job of its key. */
  debounced?: boolean;
  /** With `throttle`: true when the add folded into the key's waiting job. */
  throttled?: boolean;
}

/** How an add with `debounce` or `throttle` folds into the newest job of its key. */
export interface Fold {
  kind: 'debounce' | 'throttle';
  /** `trailing` and `leading` for a debounce; `throttle` for a throttle. */
  mode: 'trailing' | 'leading' | 'throttle';
  seconds: number;
  /** A trailing debounce's bound from the first add; Infinity when unbounded. */
  maxWaitSeconds: number;
}

/**
 * A job request after its checks: the row it writes, as far as the job itself decides it
 * (`max_attempts` and `retention` only when it sets them: its queue gives the rest), and the
 * time-windowed lock it takes, if any.
 */
export interface JobRequest {
  row: InsertRow;
  /** unique_locks scope and window, for idempotencyKey / uniqueFor. */
  lock?: { scope: string; ttlSeconds: number };
  /** The retention policy as given, when the job sets one (for the note on what it keeps). */
  policy?: RetentionPolicy | false;
  /** With `debounce` or `throttle`: how the add folds (`row.fold_key` names the key). */
  fold?: Fold;
  /** With `dependsOn`: the jobs it waits for (each once) and what a failed one does to it. */
  dependsOn?: { ids: string[]; onFailure: DependencyFailurePolicy; field: string };
}

/** The job options written to the row as they are read, each under its column (job-options.ts). */
const STORED_AS_GIVEN = jobOptions.columns();

/** Check one `addJob` input (its errors name `field`, e.g. `jobs[3]`); nothing is written. */
export function resolveAddJob(input: unknown, field = ''): JobRequest {
  return resolveJobRequest(jobOptions.read(input, field), field);
}

/** Check a workflow child's queue, data and options; nothing is written. */
export function resolveChild(queue: unknown, data: unknown, input: unknown): JobRequest {
  const options = childOptions.read(input, 'options');
  const { queue: name, data: dataText } = jobOptions.read({ queue, data });
  return resolveJobRequest({ ...options, queue: name, data: dataText }, 'options');
}

/** A schedule fire's job: its queue, data, key and tier, as the schedule stores them. */
export function resolveFire(queue: string, data: unknown, options: ScheduleJobOptions): JobRequest {
  return resolveJobRequest(jobOptions.read({ queue, data, ...options }), '');
}

/**
 * The one resolution of a job request, whichever way it came in: the checked options (each
 * error named its field) turned into the row the insert writes, with the rules that span
 * fields. `field` prefixes the names in those errors.
 */
function resolveJobRequest(options: ReadJobOptions, field: string): JobRequest {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const { queue, data: dataText } = options;
  if (options.runAt !== undefined && options.delaySeconds !== undefined) {
    throw new InvalidOptionError(
      at('delaySeconds'),
      'either runAt or delaySeconds, not both',
      options.delaySeconds,
    );
  }
  if (options.idempotencyKey !== undefined && options.uniqueFor !== undefined) {
    throw new InvalidOptionError(
      at('uniqueFor'),
      'either idempotencyKey or uniqueFor, not both',
      options.uniqueFor,
    );
  }
  const row: InsertRow = { queue, dataText, priority: options.priority };
  for (const [option, column] of STORED_AS_GIVEN) {
    const value = options[option as keyof ReadJobOptions];
    // Set in place: a bulk add resolves thousands of requests, and an object per field adds up.
    if (value !== undefined) Reflect.set(row, column, value);
  }
  const request: JobRequest = { row };
  if (options.retention !== undefined) {
    row.retention = options.retention.windows;
    request.policy = options.retention.policy;
  }
  if (options.runAt !== undefined) row.run_at = options.runAt.toISOString();
  const { unique } = options;
  if (unique === true) row.unique_key = `data:${sha256(canonicalJson(dataText))}`;
  else if (typeof unique === 'string') row.unique_key = `key:${unique}`;
  if (row.unique_key && (options.idempotencyKey !== undefined || options.uniqueFor !== undefined)) {
    throw new InvalidOptionError(at('unique'), 'unique without idempotencyKey or uniqueFor', unique);
  }
  if (options.debounce !== undefined || options.throttle !== undefined) resolveFold(request, options, at);
  if (options.dependsOn !== undefined || options.onDependencyFailure !== undefined) {
    resolveDependencies(request, options, at);
  }
  if (options.idempotencyKey !== undefined) {
    const { key, ttlSeconds } = options.idempotencyKey;
    request.lock = { scope: `idem:${queue}:${key}`, ttlSeconds };
  }
  if (options.uniqueFor !== undefined) {
    request.lock = {
      scope: `data:${queue}:${sha256(canonicalJson(dataText))}`,
      ttlSeconds: options.uniqueFor,
    };
  }
  return request;
}

/** `dependsOn` and its policy; not with a fold, whose add may return an earlier job instead. */
function resolveDependencies(
  request: JobRequest,
  options: ReadJobOptions,
  at: (name: string) => string,
): void {
  const { dependsOn, onDependencyFailure } = options;
  if (dependsOn === undefined) {
    throw new InvalidOptionError(
      at('onDependencyFailure'),
      'no onDependencyFailure without dependsOn',
      onDependencyFailure,
    );
  }
  if (request.fold !== undefined) {
    throw new InvalidOptionError(
      at('dependsOn'),
      `either dependsOn or ${request.fold.kind}, not both`,
      dependsOn,
    );
  }
  request.dependsOn = { ids: dependsOn, onFailure: onDependencyFailure ?? 'fail', field: at('dependsOn') };
}

/** The options no `debounce` or `throttle` goes with (a debounce, nor with `delaySeconds`). */
const FOLD_CLASHES = ['idempotencyKey', 'uniqueFor', 'unique', 'runAt'] as const;

/** A debounce or throttle: the key on the row and the rule of the fold. */
function resolveFold(request: JobRequest, options: ReadJobOptions, at: (name: string) => string): void {
  const { debounce, throttle } = options;
  const name = debounce !== undefined ? 'debounce' : 'throttle';
  const given = debounce ?? throttle;
  if (given === undefined) return;
  // A fold decides the run time, and is the key's one deduplication: what would do either clashes.
  const clashing: readonly (keyof ReadJobOptions)[] =
    debounce === undefined ? FOLD_CLASHES : ['throttle', ...FOLD_CLASHES, 'delaySeconds'];
  const clash = clashing.find((option) => options[option] !== undefined);
  if (clash !== undefined) {
    throw new InvalidOptionError(at(name), `either ${name} or ${clash}, not both`, given);
  }
  const mode = debounce === undefined ? 'throttle' : (debounce.mode ?? 'trailing');
  if (mode === 'leading' && debounce?.maxWaitSeconds !== undefined) {
    throw new InvalidOptionError(
      at('debounce.maxWaitSeconds'),
      "no maxWaitSeconds with mode 'leading' (the first add runs at once)",
      debounce.maxWaitSeconds,
    );
  }
  request.row.fold_key = `${name}:${given.key}`;
  request.fold = {
    kind: name,
    mode,
    seconds: given.seconds,
    maxWaitSeconds: debounce?.maxWaitSeconds ?? Number.POSITIVE_INFINITY,
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The same data written with keys in another order deduplicates as the same data. */
function canonicalJson(text: string): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (isObject(value)) {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sort(value[key])]),
      );
    }
    return value;
  };
  return JSON.stringify(sort(JSON.parse(text)));
}
