import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadOverview } from '../../src/admin/overview.js';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger } from '../../src/index.js';
import { get } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('queues: ready versus scheduled, and latency', ({ openOnClock }) => {
  test('splits pending and retry jobs by run_at against the database clock; latency is the oldest due job', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    tm.createQueue({ name: 'mail' });
    tm.createQueue({ name: 'idle' });
    await tm.addJob({ queue: 'mail', data: { n: 1 } });
    await tm.clock.advance(90);
    await tm.addJob({ queue: 'mail', data: { n: 2 } });
    await tm.addJob({ queue: 'mail', data: { n: 3 }, delaySeconds: 3600 });
    await tm.addJob({ queue: 'mail', data: { n: 4 }, delaySeconds: 7200 });
    await tm.addJob({ queue: 'idle', data: {}, delaySeconds: 60 });

    const read = async () => {
      const overview = await loadOverview(engineOf(tm));
      const byName = new Map(overview.queues.map((q) => [q.name, q]));
      return { mail: byName.get('mail'), idle: byName.get('idle') };
    };
    const first = await read();
    assert.equal(first.mail?.ready.n, 2);
    assert.equal(first.mail?.scheduled.n, 2);
    assert.equal(first.mail?.ready.kind, 'exact');
    assert.equal(first.mail?.latencySeconds, 90, 'the first job has been due for 90 s of the test clock');
    assert.equal(first.mail?.counts.pending?.n, 4, 'the status count still holds all four');
    assert.equal(first.idle?.ready.n, 0);
    assert.equal(first.idle?.scheduled.n, 1);
    assert.equal(first.idle?.latencySeconds, null, 'nothing ready: no latency');

    // An hour on, the first delayed job is due: it moves from scheduled to ready.
    await tm.clock.advance(3600);
    const later = await read();
    assert.equal(later.mail?.ready.n, 3);
    assert.equal(later.mail?.scheduled.n, 1);
    assert.equal(later.mail?.latencySeconds, 3690);
    assert.equal(later.idle?.ready.n, 1);
    assert.equal(later.idle?.latencySeconds, 3600 - 60);

    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(url)).body;
    const row = /<tr data-queue="mail">([\s\S]*?)<\/tr>/.exec(page)?.[1] ?? '';
    assert.match(row, /<td class="num" data-ready="3" title="">3<\/td>/);
    assert.match(row, /<td class="num" data-scheduled="1" title="">1<\/td>/);
    assert.match(row, /data-latency-seconds="3690">62 min<\/td>/);
    assert.match(page, /<th class="num">scheduled<\/th>/);
  });
});
