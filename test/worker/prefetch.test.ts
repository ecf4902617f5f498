import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AUTO_PREFETCH_MAX, PrefetchSizer } from '../../src/worker/prefetch.js';

/** Drive the sizer with a fake clock: `perMs` starts every ms for `ms`, claims taking `claimMs`. */
function run(sizer: PrefetchSizer, clock: { t: number }, ms: number, startsPerMs: number, claimMs: number) {
  for (let i = 0; i < ms; i++) {
    clock.t += 1;
    for (let k = 0; k < startsPerMs; k++) sizer.started();
    if (i % 10 === 0) sizer.claimed(claimMs);
    sizer.target();
  }
  return sizer.target();
}

describe('PrefetchSizer', () => {
  test('fast jobs get about four claim round trips of work, bounded', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', 10, () => clock.t);
    // 5 starts per ms = 5,000 jobs/s, claims of 4 ms: 4 round trips = 80 jobs.
    const target = run(sizer, clock, 1_000, 5, 4);
    assert.ok(target >= 60 && target <= 100, `target ${target}`);
    // 100,000 jobs/s with 10 ms claims would be 4,000: bounded.
    assert.equal(run(sizer, clock, 1_000, 100, 10), AUTO_PREFETCH_MAX);
  });

  test('a burst of fast starts sizes the buffer within milliseconds, not after a whole window', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', 10, () => clock.t);
    sizer.claimed(4);
    // 20,000 jobs/s from a standing start: after 5 ms the buffer already holds several claim
    // round trips of work (a 50 ms window alone would still say 0).
    const target = run(sizer, clock, 5, 20, 4);
    assert.ok(target >= 100, `target ${target}`);
  });

  test('slow jobs get no buffer, and an idle spell empties it', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', 10, () => clock.t);
    assert.equal(sizer.target(), 0);
    run(sizer, clock, 1_000, 5, 4);
    // Ten slots of one-second jobs: 10 starts per second.
    let target = 0;
    for (let s = 0; s < 20; s++) {
      sizer.started();
      target = run(sizer, clock, 100, 0, 4);
    }
    assert.equal(target, 0);
  });

  test('a worker meeting a backlog of fast jobs sizes its buffer once its first jobs end, before any rate sample', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', 10, () => clock.t);
    sizer.claimed(4);
    // Ten jobs started and ended within the first millisecond: no sample has ended yet.
    for (let k = 0; k < 10; k++) sizer.started();
    assert.equal(sizer.target(), 0, 'nothing is known before a job ends');
    for (let k = 0; k < 10; k++) sizer.held(0.05);
    // Ten slots of 0.05 ms jobs could start 200,000 a second: bounded.
    assert.equal(sizer.target(), AUTO_PREFETCH_MAX);
  });

  test('jobs that hold their slots long get no buffer from their slot time', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', 10, () => clock.t);
    sizer.claimed(4);
    for (let k = 0; k < 10; k++) sizer.held(1_000);
    // Ten slots of one-second jobs: 10 a second, 0.16 jobs in four 4 ms round trips.
    assert.equal(sizer.target(), 0);
    // 5 ms jobs at concurrency 100: 20,000 a second, 320 jobs in four 4 ms round trips.
    const wide = new PrefetchSizer('auto', 100, () => clock.t);
    for (let k = 0; k < 30; k++) wide.claimed(4);
    for (let k = 0; k < 20; k++) wide.held(5);
    const target = wide.target();
    assert.ok(target >= 300 && target <= 340, `target ${target}`);
  });

  test('a fixed size is held whatever the rate; 0 turns prefetch off', () => {
    const clock = { t: 0 };
    assert.equal(run(new PrefetchSizer(7, 10, () => clock.t), clock, 200, 0, 4), 7);
    assert.equal(run(new PrefetchSizer(0, 10, () => clock.t), clock, 200, 50, 4), 0);
  });
});
