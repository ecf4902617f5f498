import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('dashboard: rate limiters', ({ openOnClock }) => {
  test('the Queues page shows each limiter with its held jobs, names escaped; none: no section', async () => {
    const tm = await openOnClock();
    const { url } = await tm.dashboard({ port: 0 });
    assert.doesNotMatch((await get(url)).body, /Rate limiters/);
    await tm.defineLimiter('<i>api</i>', { limit: 1, periodSeconds: 60 });
    tm.createQueue({ name: 'calls', limiters: [{ name: '<i>api</i>' }], handler: () => null });
    await tm.addJobs([{ queue: 'calls' }, { queue: 'calls' }, { queue: 'calls' }]);
    await tm.runUntilIdle();
    const page = await get(url);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /<i>api<\/i>/);
    assert.match(
      page.body,
      /data-limiter="&lt;i&gt;api&lt;\/i&gt;"><td>&lt;i&gt;api&lt;\/i&gt;<\/td>\s*<td class="num">1 per 60 s<\/td><td class="num">0<\/td>\s*<td class="num">60.06 s<\/td><td class="num">1<\/td>\s*<td class="num">2<\/td>/,
    );
  });
});
