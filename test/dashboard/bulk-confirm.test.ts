import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmForm, csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { finishedJobs, statusesOf, updateJob } from '../support/jobs.js';

/** The ids of the rows a job list page shows. */
function listedIds(page: string): string[] {
  return [...page.matchAll(/<tr data-job-id="(\d+)">/g)].map((m) => m[1]).sort();
}

describeOnOneDriver('dashboard bulk confirmation acts on what it counted', ({ open }) => {
  test('the confirm with a text filter acts on exactly the jobs the list shows', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [inData, inMessage, inName, neither, otherQueue] = await finishedJobs(tm, 'q', 5);
    await updateJob(tm, inData, `data = '{"note": "Needle 7"}'`);
    await updateJob(tm, inMessage, `error = '{"name": "Error", "message": "a needle in the error"}'`);
    await updateJob(tm, inName, `error = '{"name": "NeedleError", "message": "boom"}'`);
    await updateJob(tm, neither, `error = '{"name": "Error", "message": "hay"}'`);
    tm.createQueue({ name: 'other' });
    await updateJob(tm, otherQueue, `queue = 'other', data = '{"note": "needle"}'`);
    const [completed] = await finishedJobs(tm, 'q', 1, 'completed');
    await updateJob(tm, completed, `data = '{"note": "needle"}'`);
    const { url } = await tm.dashboard({ port: 0 });

    const list = (await get(`${url}jobs?queue=q&status=failed&q=needle`)).body;
    const shown = listedIds(list);
    assert.deepEqual(shown, [inData, inMessage, inName].sort());
    const preview = await post(`${url}jobs/bulk/preview`, {
      csrf: csrfIn(list),
      do: 'retry-matching',
      queue: 'q',
      status: 'failed',
      q: 'needle',
    });
    assert.match(preview.body, /<strong id="bulk-count">3<\/strong> jobs match/);
    const done = await post(`${url}jobs/bulk/confirm`, confirmForm(preview.body));
    assert.equal(done.status, 200, done.body);
    const all = [inData, inMessage, inName, neither, otherQueue, completed];
    const statuses = await statusesOf(tm, all);
    const retried = all.filter((_, i) => statuses[i] === 'pending').sort();
    assert.deepEqual(retried, shown, 'the jobs retried are the jobs the list showed');
  });

  test('a set that grew after the count is refused with a fresh count, and nothing is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const counted = await finishedJobs(tm, 'q', 3);
    const later = (await tm.addJobs([1, 2].map((i) => ({ queue: 'q', data: { i } })))).map((r) => r.id);
    const { url } = await tm.dashboard({ port: 0 });
    const list = (await get(`${url}jobs?queue=q&status=failed`)).body;
    const request = { csrf: csrfIn(list), do: 'retry-matching', queue: 'q', status: 'failed' };
    const preview = await post(`${url}jobs/bulk/preview`, request);
    assert.match(preview.body, /<strong id="bulk-count">3<\/strong> jobs match/);
    assert.match(preview.body, /<button type="submit" class="danger">Retry 3 jobs<\/button>/);
    const confirm = confirmForm(preview.body);
    assert.ok(confirm.csrf?.[0], 'the confirmation form carries the CSRF token');

    // Two jobs counted as pending fail meanwhile: the set is now 5, not the 3 confirmed.
    for (const id of later) await updateJob(tm, id, `status = 'failed', attempts = 1, finished_at = now()`);
    const grew = await post(`${url}jobs/bulk/confirm`, confirm);
    assert.equal(grew.status, 409, grew.body);
    assert.match(
      grew.body,
      /id="bulk-grew">5 jobs match now, more than the 3 you confirmed: nothing was changed/,
    );
    assert.match(grew.body, /<strong id="bulk-count">5<\/strong> jobs match/);
    assert.deepEqual(
      await statusesOf(tm, [...counted, ...later]),
      Array(5).fill('failed'),
      'nothing written',
    );

    // A job added after the fresh count is not among those confirmed, and stays as it is.
    const [added] = await finishedJobs(tm, 'q', 1);
    const again = confirmForm(grew.body);
    assert.ok(again.csrf?.[0], 'the fresh confirmation form carries the CSRF token');
    const withoutCsrf = await post(`${url}jobs/bulk/confirm`, { ...again, csrf: [] });
    assert.equal(withoutCsrf.status, 403);
    const done = await post(`${url}jobs/bulk/confirm`, again);
    assert.equal(done.status, 200, done.body);
    assert.match(done.body, /Retried <strong id="bulk-done">5<\/strong> of 5 matching jobs/);
    assert.deepEqual(await statusesOf(tm, [...counted, ...later, added]), [
      ...Array(5).fill('pending'),
      'failed',
    ]);
  });

  test('a confirmation without the count it confirmed is refused, and nothing is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const failed = await finishedJobs(tm, 'q', 2);
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${url}jobs?queue=q&status=failed`)).body);
    const res = await post(`${url}jobs/bulk/confirm`, {
      csrf,
      do: 'retry-matching',
      queue: 'q',
      status: 'failed',
      confirm: 'yes',
    });
    assert.equal(res.status, 400);
    assert.match(res.body, /carries no count/);
    assert.deepEqual(await statusesOf(tm, failed), ['failed', 'failed']);
  });
});
