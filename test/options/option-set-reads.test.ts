import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TProperties } from '@sinclair/typebox';
import { InvalidOptionError } from '../../src/errors.js';
import { OPTION_SETS } from '../../src/option-sets.js';
import { OptionSet } from '../../src/options/option-set.js';

type AnySet = OptionSet<TProperties, string>;

/** Enough reads to pass from the interpreted check to the compiled one (COMPILE_AFTER_READS). */
const READS = 6;

/** Inputs each read READS times by a new copy of the set. */
const CASES: { set: keyof typeof OPTION_SETS; valid: Record<string, unknown>; invalid: unknown[] }[] = [
  {
    set: 'worker',
    valid: { queues: ['emails'], concurrency: 4, prefetch: 'auto', sweep: false },
    invalid: [
      { queues: [], concurrency: 4 },
      { queues: ['emails'], prefetch: 'sometimes' },
      { queues: ['emails'], sweep: { batchSize: 'many' } },
      { queues: ['emails'], concurency: 4 },
    ],
  },
  {
    set: 'job',
    valid: { queue: 'emails', data: { to: 'a@example.com' }, priority: 3, retention: { completed: 60 } },
    invalid: [
      { data: {} },
      { queue: 'emails', priority: 1.5 },
      { queue: 'emails', idempotencyKey: { key: 'k', ttlSeconds: -1 } },
    ],
  },
];

function errorOf(read: () => unknown): Record<string, unknown> {
  try {
    read();
  } catch (error) {
    assert.ok(error instanceof InvalidOptionError, `expected InvalidOptionError, got ${String(error)}`);
    return { code: error.code, field: error.field, message: error.message };
  }
  return assert.fail('the input was taken');
}

for (const { set, valid, invalid } of CASES) {
  test(`${set} options: every read gives the same answer, before and after the check is compiled`, () => {
    const model = OPTION_SETS[set] as unknown as AnySet;
    // A set of its own for each input, so each input meets the interpreted check first.
    const readsOf = <T>(input: unknown, read: (set: AnySet, input: unknown) => T): T[] => {
      const fresh = new OptionSet(model.name, model.properties, model.required);
      return Array.from({ length: READS }, () => read(fresh, structuredClone(input)));
    };
    const taken = readsOf(valid, (fresh, input): Record<string, unknown> => fresh.read(input));
    assert.deepEqual(taken[0].queue ?? taken[0].queues, valid.queue ?? valid.queues);
    for (const value of taken) assert.deepEqual(value, taken[0]);
    for (const input of invalid) {
      const errors = readsOf(input, (fresh, value) => errorOf(() => fresh.read(value)));
      for (const error of errors) assert.deepEqual(error, errors[0], JSON.stringify(input));
    }
  });
}
