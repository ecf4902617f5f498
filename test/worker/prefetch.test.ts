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
    const sizer = new PrefetchSizer('auto', () => clock.t);
    // 5 starts per ms = 5,000 jobs/s, claims of 4 ms: 4 round trips = 80 jobs.
    const target = run(sizer, clock, 1_000, 5, 4);
    assert.ok(target >= 60 && target <= 100, `target ${target}`);
    // 100,000 jobs/s with 10 ms claims would be 4,000: bounded.
    assert.equal(run(sizer, clock, 1_000, 100, 10), AUTO_PREFETCH_MAX);
  });

  test('a burst of fast starts sizes the buffer within milliseconds, not after a whole window', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', () => clock.t);
    sizer.claimed(4);
    // 20,000 jobs/s from a standing start: after 5 ms the buffer already holds several claim
    // round trips of work (a 50 ms window alone would still say 0).
    const target = run(sizer, clock, 5, 20, 4);
    assert.ok(target >= 100, `target ${target}`);
  });

  test('slow jobs get no buffer, and an idle spell empties it', () => {
    const clock = { t: 0 };
    const sizer = new PrefetchSizer('auto', () => clock.t);
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

  test('a fixed size is held whatever the rate; 0 turns prefetch off', () => {
    const clock = { t: 0 };
    assert.equal(run(new PrefetchSizer(7, () => clock.t), clock, 200, 0, 4), 7);
    assert.equal(run(new PrefetchSizer(0, () => clock.t), clock, 200, 50, 4), 0);
  });
});
