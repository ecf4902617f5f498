import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmForm, csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { finishedJobs, statusesOf, updateJob } from '../support/jobs.js';

describeOnOneDriver('dashboard bulk actions', ({ open }) => {
  test('retry all failed jobs of a queue: dry-run count, confirm, outcome', async () => {
    const tm = await open();
    tm.createQueue({ name: 'billing' });
    tm.createQueue({ name: 'mail' });
    const failed = await finishedJobs(tm, 'billing', 4);
    const [conflicted] = await finishedJobs(tm, 'billing', 1);
    await updateJob(tm, conflicted, `unique_key = 'key:k'`);
    const holder = (await tm.addJob({ queue: 'billing', data: {}, unique: 'k' })).id;
    const [elsewhere] = await finishedJobs(tm, 'mail', 1);
    const { url } = await tm.dashboard({ port: 0 });

    const list = (await get(`${url}jobs?queue=billing&status=failed`)).body;
    assert.match(list, /<form method="post" action="\/jobs\/bulk\/preview" id="bulk-form">/);
    assert.match(list, /name="do" value="retry-matching"/);
    assert.doesNotMatch(list, /value="cancel-matching"/, 'failed jobs cannot be cancelled');
    assert.match(list, new RegExp(`<input type="checkbox" name="id" value="${failed[0]}"`));
    const csrf = csrfIn(list);
    const request = { csrf, do: 'retry-matching', queue: 'billing', status: 'failed' };

    const preview = await post(`${url}jobs/bulk/preview`, request);
    assert.equal(preview.status, 200, preview.body);
    assert.match(preview.body, /<strong id="bulk-count">5<\/strong> jobs match/);
    assert.match(preview.body, /id="bulk-confirm"/);
    assert.deepEqual(await statusesOf(tm, failed), Array(4).fill('failed'), 'the preview changes nothing');

    const done = await post(`${url}jobs/bulk/confirm`, confirmForm(preview.body));
    assert.equal(done.status, 200, done.body);
    assert.match(done.body, /Retried <strong id="bulk-done">4<\/strong> of 5 matching jobs/);
    assert.match(done.body, /id="bulk-refused"/);
    assert.match(
      done.body,
      new RegExp(`<a href="/jobs/${conflicted}">${conflicted}</a></td><td class="mono">unique-key-conflict`),
    );
    assert.deepEqual(await statusesOf(tm, [...failed, conflicted, holder, elsewhere]), [
      ...Array(4).fill('pending'),
      'failed',
      'pending',
      'failed',
    ]);
  });

  test('cancel the selected rows; a filter without a status is refused', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const added = (await tm.addJobs([1, 2, 3].map((i) => ({ queue: 'q', data: { i } })))).map((r) => r.id);
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${url}jobs?queue=q`)).body);
    const chosen = { csrf, do: 'cancel-selected', id: [added[0], added[2]] };
    const preview = await post(`${url}jobs/bulk/preview`, chosen);
    assert.match(preview.body, /<strong id="bulk-count">2<\/strong> jobs match \(2 chosen jobs/);
    const done = await post(`${url}jobs/bulk/confirm`, confirmForm(preview.body));
    assert.match(done.body, /Cancelled <strong id="bulk-done">2<\/strong> of 2/);
    assert.deepEqual(await statusesOf(tm, added), ['cancelled', 'pending', 'cancelled']);

    const noStatus = await post(`${url}jobs/bulk/preview`, { csrf, do: 'cancel-matching', queue: 'q' });
    assert.equal(noStatus.status, 400);
    assert.match(noStatus.body, /filter\.status/);
    const none = await post(`${url}jobs/bulk/preview`, { csrf, do: 'cancel-selected' });
    assert.equal(none.status, 400);
    assert.equal((await tm.getJob(added[1]))?.status, 'pending');
  });

  test('a read-only dashboard shows no bulk controls and refuses the posts', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [id] = await finishedJobs(tm, 'q', 1);
    const { url } = await tm.dashboard({ port: 0, readOnly: true });
    const list = (await get(`${url}jobs?queue=q&status=failed`)).body;
    assert.match(list, new RegExp(`data-job-id="${id}"`));
    assert.doesNotMatch(list, /type="checkbox"|name="do"/);
    for (const step of ['preview', 'confirm']) {
      const res = await post(`${url}jobs/bulk/${step}`, {
        csrf: 'x',
        do: 'retry-matching',
        queue: 'q',
        status: 'failed',
        confirm: 'yes',
      });
      assert.equal(res.status, 403);
    }
    assert.equal((await tm.getJob(id))?.status, 'failed');
  });

  test('Cancel on a job page asks for confirmation first', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const { url } = await tm.dashboard({ port: 0 });
    const detail = (await get(`${url}jobs/${id}`)).body;
    assert.doesNotMatch(detail, new RegExp(`action="/jobs/${id}/cancel"`), 'no one-click cancel');
    assert.ok(detail.includes(`href="/jobs/${id}/confirm?action=cancel"`));
    const confirm = (await get(`${url}jobs/${id}/confirm?action=cancel`)).body;
    assert.match(confirm, new RegExp(`<form method="post" action="/jobs/${id}/cancel" id="confirm-cancel">`));
    assert.equal((await tm.getJob(id))?.status, 'pending', 'the confirmation page cancels nothing');
    const res = await post(`${url}jobs/${id}/cancel`, { csrf: csrfIn(confirm) });
    assert.equal(res.status, 303);
    assert.equal((await tm.getJob(id))?.status, 'cancelled');
    const finished = (await get(`${url}jobs/${id}/confirm?action=cancel`)).body;
    assert.match(finished, /nothing to cancel/);
    assert.doesNotMatch(finished, /id="confirm-cancel"/);
  });
});
