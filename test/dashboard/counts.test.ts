import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COUNT_CAP } from '../../src/admin/status-count.js';
import { engineOf } from '../../src/engine-handle.js';
import type { Tidemark } from '../../src/index.js';
import { ALL_STATUSES } from '../../src/job-status.js';
import { cappedStatusCounts, indexWalksOnly } from '../../src/storage/sql/admin.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { get } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { analyzeJobs, seedCountCells } from '../support/seed-counts.js';

/** The completed cell and the "finished (1 h)" cell of a queue's row on the queues page. */
async function queueRow(tm: Tidemark, url: string, queue: string) {
  const page = (await get(url)).body;
  const row = new RegExp(`<tr data-queue="${queue}">([\\s\\S]*?)</tr>`).exec(page)?.[1];
  assert.ok(row, `no row for ${queue}`);
  const cells = [...row.matchAll(/<td class="num">([\s\S]*?)<\/td>/g)].map((m) => m[1]);
  const completed = /data-count="(\w+)">([^<]+)</.exec(cells[ALL_STATUSES.indexOf('completed')]);
  assert.ok(completed, `no completed count for ${queue} in ${tm.schema}`);
  return { kind: completed[1], text: completed[2], finished: cells[cells.length - 1], page };
}

/** The plan of the bounded counts as the overview runs them. */
async function countsPlan(tm: Tidemark): Promise<string> {
  const db = runnerOf(engineOf(tm).storage);
  const params = { queues: ['small', 'big'], statuses: [...ALL_STATUSES], cap: COUNT_CAP + 1 };
  // The same transaction as the overview's: index walks only, then the statement.
  const { rows } = await db.driver.transaction(async (tx) => {
    await db.run(indexWalksOnly, {}, tx);
    return tx.query(`explain ${cappedStatusCounts.text(tm.schema)}`, cappedStatusCounts.values(params));
  });
  return rows.map((r) => Object.values(r as Record<string, string>)[0]).join('\n');
}

describeOnOneDriver('queues page counts', ({ open }) => {
  test('exact to 10,000 per cell; above, 10,000+ or an estimate never below it, before and after ANALYZE', async () => {
    const tm = await open();
    await seedCountCells(tm);
    const { url } = await tm.dashboard({ port: 0 });

    const small = await queueRow(tm, url, 'small');
    assert.deepEqual([small.kind, small.text], ['exact', '2,400']);
    assert.equal(small.finished, '2,400', 'the count agrees with "finished (1 h)" in the same row');
    const big = await queueRow(tm, url, 'big');
    assert.deepEqual([big.kind, big.text], ['atLeast', '10,000+'], 'no statistics yet: a lower bound');
    assert.doesNotMatch(big.page, /holds about/, 'no table estimate below what was counted');

    await analyzeJobs(tm);
    const smallAfter = await queueRow(tm, url, 'small');
    assert.deepEqual([smallAfter.kind, smallAfter.text], ['exact', '2,400']);
    const bigAfter = await queueRow(tm, url, 'big');
    assert.deepEqual([bigAfter.kind, bigAfter.text], ['estimate', '≈25k']);
    assert.match(bigAfter.page, /title="more than 10,000; about 25,000 by the table statistics"/);
    assert.match(bigAfter.page, /The jobs table holds about 27k rows/);
  });

  test('each cell is one ordered index walk that stops at the bound, with or without statistics', async () => {
    const tm = await open();
    await seedCountCells(tm);
    for (const state of ['before ANALYZE', 'after ANALYZE']) {
      const plan = await countsPlan(tm);
      assert.match(plan, /Index (Only )?Scan Backward using jobs_queue_status_idx/, `${state}\n${plan}`);
      assert.doesNotMatch(plan, /Bitmap|Seq Scan on jobs|Sort/, `${state}: never the whole cell\n${plan}`);
      await analyzeJobs(tm);
    }
  });
});
