import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobStatus, Logger } from '../../src/index.js';
import type { AttemptOutcome, Storage } from '../../src/storage/storage.js';
import { FinishBuffer, Unwritten } from '../../src/worker/finish-buffer.js';
import { RetryWindow } from '../../src/worker/retry-window.js';
import { deferred } from '../support/jobs.js';

/** What PostgreSQL says of a NUL in jsonb, with its SQLSTATE, as both drivers report it. */
const refusal = () => Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
const connectionRefused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/**
 * A storage whose finishing write records each batch; ids listed in `lost` were not owned,
 * a batch holding an id of `refuse` is refused, and the first `down` writes fail to connect.
 */
function fakeStorage(options: { lost?: string[]; refuse?: string[]; down?: number } = {}) {
  const batches: string[][] = [];
  let down = options.down ?? 0;
  const storage: Pick<Storage['attempts'], 'finishAttempts'> = {
    async finishAttempts(outcomes: AttemptOutcome[]) {
      batches.push(outcomes.map((o) => o.id));
      if (down > 0) {
        down--;
        throw connectionRefused();
      }
      if (outcomes.some((o) => options.refuse?.includes(o.id))) throw refusal();
      // As the statement answers: only outcomes that did not complete, by lock token.
      return new Map<string, JobStatus | null>(
        outcomes.flatMap((o): [string, JobStatus | null][] =>
          options.lost?.includes(o.id) ? [[o.token, null]] : o.ok ? [] : [[o.token, 'failed']],
        ),
      );
    },
  };
  return { storage, batches };
}

function recordingLogger() {
  const records: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => records.push({ level, message });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, records };
}

const outcome = (id: string, ok = true): AttemptOutcome => ({ id, token: `t${id}`, ok, output: 'null' });
const quickRetries = () => new RetryWindow(() => 1);

describe('FinishBuffer', () => {
  test('an outcome that settles as a write lands joins the outcomes held back by that write', async () => {
    const { storage, batches } = fakeStorage();
    const gate = deferred();
    // Each write waits for the gate: the first is in flight until the test opens it.
    const gated: typeof storage = {
      finishAttempts: async (outcomes) => {
        await gate.promise;
        return storage.finishAttempts(outcomes);
      },
    };
    const buffer = new FinishBuffer(gated);
    const first = buffer.push(outcome('1'));
    await new Promise(setImmediate);
    // Pushed while the first write is in flight: held for the next statement.
    const second = buffer.push(outcome('2'));
    // Settles once the first write has landed, as the next job of a slot that write freed would.
    const third = first.then(() => buffer.push(outcome('3')));
    gate.resolve();
    await Promise.all([first, second, third]);
    await buffer.idle();
    assert.deepEqual(batches, [['1'], ['2', '3']]);
  });

  test('outcomes of one turn share statements of at most the batch size, and each reads its own row', async () => {
    const { storage, batches } = fakeStorage({ lost: ['5'] });
    const buffer = new FinishBuffer(storage, { maxBatch: 3 });
    const ids = ['1', '2', '3', '4', '5', '6', '7'];
    const results = await Promise.all(ids.map((id) => buffer.push(outcome(id, id !== '2'))));
    assert.deepEqual(batches, [['1', '2', '3'], ['4', '5', '6'], ['7']]);
    assert.equal(results[0].resultOf('t1'), 'completed');
    assert.equal(results[1].resultOf('t2'), 'failed');
    assert.equal(results[4].resultOf('t5'), undefined, 'a lost attempt has no status');
    assert.equal(results[6].resultOf('t7'), 'completed');
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

  test('a batch refused for one row is split until that row stands alone; the others are written', async () => {
    const { storage, batches } = fakeStorage({ refuse: ['6'] });
    const { logger, records } = recordingLogger();
    const buffer = new FinishBuffer(storage, { logger, window: quickRetries() });
    const ids = ['1', '2', '3', '4', '5', '6', '7', '8'];
    const [written] = await Promise.all(ids.map((id) => buffer.push(outcome(id))));
    for (const id of ids.filter((id) => id !== '6'))
      assert.equal(written.resultOf(`t${id}`), 'completed', id);
    const bad = written.resultOf('t6');
    assert.ok(bad instanceof Unwritten && bad.refused, 'the row at fault is reported as refused');
    assert.equal((bad.error as { code: string }).code, '22P05');
    // Halves: 8 -> 4 + 4 -> (2 + 2) -> (1 + 1): 1 + 2 + 2 + 2 statements.
    assert.equal(batches.length, 7, JSON.stringify(batches));
    assert.deepEqual(
      records.map((r) => r.level),
      ['warn'],
      'one warning, for the refused row; refusals are not retried',
    );
  });

  test('a write the database does not answer is retried past any fixed schedule until it lands', async () => {
    // Twelve failures: the former schedule gave up after five tries.
    const { storage, batches } = fakeStorage({ down: 12 });
    const { logger, records } = recordingLogger();
    const buffer = new FinishBuffer(storage, { logger, window: quickRetries() });
    const written = await buffer.push(outcome('1'));
    assert.equal(written.resultOf('t1'), 'completed');
    assert.equal(batches.length, 13);
    assert.deepEqual(
      records.map((r) => r.level),
      ['warn', 'info'],
      'the outage is logged once, and its end once',
    );
  });

  test('once the retry window closes (a stopping worker past its timeout), held outcomes are given up and logged', async () => {
    const { storage } = fakeStorage({ down: Number.POSITIVE_INFINITY });
    const { logger, records } = recordingLogger();
    const window = new RetryWindow(() => 60_000);
    const buffer = new FinishBuffer(storage, { logger, window });
    const pushed = [buffer.push(outcome('1')), buffer.push(outcome('2'))];
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A long retry wait is cut short by the close; one last try, then it gives up.
    window.closeAt(Date.now());
    const [written] = await Promise.all(pushed);
    for (const id of ['1', '2']) {
      const result = written.resultOf(`t${id}`);
      assert.ok(result instanceof Unwritten && !result.refused, id);
      assert.equal((result.error as { code: string }).code, 'ECONNREFUSED');
    }
    assert.deepEqual(
      records.map((r) => r.level),
      ['warn', 'error'],
    );
    await buffer.idle();
  });
});
