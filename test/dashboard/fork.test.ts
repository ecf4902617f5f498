import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('dashboard: forks and parked runs', ({ openOnClock }) => {
  test("a failed workflow's page forks it from its failure or a step; both pages show the lineage", async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'etl',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        await ctx.step('fetch <rows>', () => 1);
        await ctx.step('load', () => {
          throw new Error('down');
        });
      },
    });
    const { id } = await tm.addJob({ queue: 'etl' });
    await tm.runUntilIdle();
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs/${id}`)).body;
    assert.match(page, /<option value="failure">from its failure/);
    assert.match(
      page,
      /<option value="step:fetch &lt;rows&gt;">again from step fetch &lt;rows&gt;/,
      'escaped',
    );
    const csrf = csrfIn(page);

    assert.equal((await post(`${url}jobs/${id}/fork`, { from: 'failure' })).status, 403, 'CSRF checked');
    const forked = await post(`${url}jobs/${id}/fork`, { csrf, from: 'failure' });
    assert.equal(forked.status, 303, forked.body);
    const [fork] = (await tm.getJobDetail(id))?.lineage.forks ?? [];
    assert.equal(forked.res.headers.get('location'), `/jobs/${fork}?done=fork`);
    assert.match(
      (await get(`${url}jobs/${fork}`)).body,
      new RegExp(`Forked from <a href="/jobs/${id}">#${id}</a>`),
    );
    assert.match(
      (await get(`${url}jobs/${id}`)).body,
      new RegExp(`Forks: <a href="/jobs/${fork}">#${fork}</a>`),
    );

    const missing = await post(`${url}jobs/${id}/fork`, { csrf, from: 'step:nope' });
    assert.equal(missing.status, 400);
    assert.match(missing.body, /a step job \d+ recorded/);
    assert.equal((await tm.getJobDetail(id))?.lineage.forks.length, 1, 'a refused fork adds nothing');
  });

  test('a run parked by the determinism guard shows why on its page, with Resume', async () => {
    const tm = await openOnClock();
    const code = { v2: false };
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.step(code.v2 ? 'b' : 'a', () => 1);
        await ctx.sleep('nap', 5);
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    code.v2 = true;
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs/${id}`)).body;
    assert.match(page, /NonDeterminismError/);
    assert.match(page, /record has step &#39;a&#39; at call 1, but the code called step &#39;b&#39;/);
    assert.match(page, new RegExp(`action="/jobs/${id}/resume"`));
  });
});
