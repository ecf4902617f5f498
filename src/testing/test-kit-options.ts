import { InvalidOptionError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { custom, integer } from '../options/fields.js';
import { checkLogger, openOptions } from '../options/open-options.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { dateField } from '../options/shared-fields.js';
import type { QueueOptions } from '../queues/queue-options.js';

/** Why the test kit takes no other database. */
const MEMORY_ONLY =
  "'memory://': the test kit moves the database's clock, which only a database of its own, in memory, can give it";

/** `createTestTidemark`'s options, declared once: some of `Tidemark.open`'s, and the kit's own. */
export const testKitOptions = new OptionSet('test-kit', {
  ...openOptions.pick('test-kit', [
    'schema',
    'retention',
    'archive',
    'capabilities',
    'tracer',
    'tracing',
    'traceFirstAttempt',
    'audit',
    'tokens',
  ]).properties,
  database: custom<'memory://'>({
    expected: MEMORY_ONLY,
    docType: "`'memory://'`",
    docDefault: "`'memory://'`",
    description: 'the only database the kit runs on: a fresh embedded one in memory per engine',
    jsonSchema: { const: 'memory://' },
    check: (value, field) => {
      if (value !== 'memory://') throw new InvalidOptionError(field, MEMORY_ONLY, value);
      return value;
    },
  }),
  logger: custom<Logger>({
    expected: 'an object with debug, info, warn and error functions (child optional)',
    docType: '`Logger`',
    docDefault: 'errors on stderr (a test run stays quiet)',
    description: 'as for `Tidemark.open`',
    check: checkLogger,
  }),
  now: dateField({
    description: 'where the test clock starts; it moves only when the test moves it',
    docDefault: 'the system time when the engine opens',
  }),
  maxJobsPerRun: integer(1, 1_000_000, {
    default: 10_000,
    description:
      'the attempts one `runUntilIdle()` starts before it throws `StillBusyError`, so a job that adds itself forever ends the test; `runUntilIdle({ maxJobs })` stops at a count instead, without the error',
  }),
  queues: custom<readonly QueueOptions<never, unknown>[]>({
    expected: 'an array of queue options, as tm.createQueue takes',
    docType: '`QueueOptions[]`',
    docDefault: 'none',
    description: 'queues created at once, each as `tm.createQueue(options)` would (and checked as it checks)',
    jsonSchema: { type: 'array', items: { type: 'object' } },
    check: (value, field) => {
      if (!Array.isArray(value)) throw new InvalidOptionError(field, 'an array of queue options', value);
      return value;
    },
  }),
});

/** Options of `createTestTidemark`. */
export type TestKitOptions = OptionsOf<typeof testKitOptions.properties>;
