import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AttemptOutcome, Storage } from '../../src/storage/storage.js';
import { FinishBuffer } from '../../src/worker/finish-buffer.js';

/** A storage whose finishing write records each batch; ids listed in `lost` were not owned. */
function fakeStorage(options: { lost?: string[]; failOn?: string } = {}) {
  const batches: string[][] = [];
  const storage = {
    async finishAttempts(outcomes: AttemptOutcome[]) {
      batches.push(outcomes.map((o) => o.id));
      if (options.failOn && outcomes.some((o) => o.id === options.failOn)) throw new Error('write failed');
      return new Map(
        outcomes
          .filter((o) => !options.lost?.includes(o.id))
          .map((o) => [o.id, o.ok ? 'completed' : 'failed']),
      );
    },
  } as unknown as Storage;
  return { storage, batches };
}

const outcome = (id: string, ok = true): AttemptOutcome => ({ id, token: `t${id}`, ok, output: 'null' });

describe('FinishBuffer', () => {
  test('outcomes of one turn share statements of at most the batch size, and each reads its own row', async () => {
    const { storage, batches } = fakeStorage({ lost: ['5'] });
    const buffer = new FinishBuffer(storage, 3);
    const ids = ['1', '2', '3', '4', '5', '6', '7'];
    const results = await Promise.all(ids.map((id) => buffer.push(outcome(id, id !== '2'))));
    assert.deepEqual(batches, [['1', '2', '3'], ['4', '5', '6'], ['7']]);
    assert.equal(results[0].get('1'), 'completed');
    assert.equal(results[1].get('2'), 'failed');
    assert.equal(results[4].has('5'), false, 'a lost attempt has no row');
    assert.equal(results[6].get('7'), 'completed');
    await buffer.idle();
  });

  test('outcomes pushed while a write is in flight go in the next statement', async () => {
    const { storage, batches } = fakeStorage();
    const buffer = new FinishBuffer(storage);
    const first = buffer.push(outcome('1'));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [buffer.push(outcome('2')), buffer.push(outcome('3'))];
    await Promise.all([first, ...later]);
    assert.deepEqual(batches, [['1'], ['2', '3']]);
  });

  test('a failed write rejects its own batch only', async () => {
    const { storage, batches } = fakeStorage({ failOn: '2' });
    // The failure is permanent here: every retry fails too.
    const buffer = new FinishBuffer(storage, 2, [1, 1]);
    const pushes = ['1', '2', '3'].map((id) => buffer.push(outcome(id)));
    const settled = await Promise.allSettled(pushes);
    assert.equal(settled[0].status, 'rejected');
    assert.equal(settled[1].status, 'rejected');
    assert.equal(settled[2].status, 'fulfilled');
    assert.equal(batches.filter((b) => b.includes('2')).length, 3, 'the failed write was tried three times');
  });
});
