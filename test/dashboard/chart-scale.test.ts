import assert from 'node:assert/strict';
import { test } from 'node:test';
import { niceCountMax, throughputChart } from '../../src/dashboard/chart.js';

test('a chart of counts labels its grid lines with whole numbers, the middle one too', () => {
  assert.deepEqual([0, 1, 2, 3, 5, 7, 12, 50, 999].map(niceCountMax), [2, 2, 2, 10, 10, 10, 20, 50, 1000]);
  const perMinute = Array.from({ length: 60 }, (_, i) => ({
    completed: i === 59 ? 1 : 0,
    failed: 0,
    other: 0,
  }));
  // Top to bottom: the maximum, the middle line, zero; in HTML, so they keep their size.
  const labels = [...throughputChart(perMinute).text.matchAll(/<span class="tick">(\d+)<\/span>/g)].map(
    (m) => m[1],
  );
  assert.deepEqual(labels, ['2', '1', '0']);
});
