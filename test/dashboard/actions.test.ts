import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';

describeOnOneDriver('dashboard actions', ({ open }) => {
  test('retry, cancel, pause and resume a job through the public API', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${url}jobs/${id}`)).body);
    const act = async (action: string, status: string) => {
      const res = await post(`${url}jobs/${id}/${action}`, { csrf });
      assert.equal(res.status, 303, `${action}: ${res.body}`);
      assert.equal(res.res.headers.get('location'), `/jobs/${id}?done=${action}`);
      assert.equal((await tm.getJob(id))?.status, status, action);
      const page = (await get(`${url}jobs/${id}?done=${action}`)).body;
      assert.match(page, /class="notice ok"/);
    };
    await act('pause', 'paused');
    await act('resume', 'pending');
    await act('cancel', 'cancelled');
    await act('retry', 'pending');
  });

  test('a refusal shows the typed error message, escaped, and changes nothing', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(url)).body);
    const del = await post(`${url}jobs/${id}/delete`, { csrf });
    assert.equal(del.status, 409);
    assert.match(
      del.body,
      new RegExp(`job ${id} is pending; in-flight jobs are never deleted: cancel it first`),
    );
    const subtree = await post(`${url}jobs/${id}/delete-subtree`, { csrf });
    assert.equal(subtree.status, 409);
    const resume = await post(`${url}jobs/${id}/resume`, { csrf });
    assert.equal(resume.status, 409);
    assert.match(resume.body, /only paused jobs can be resumed/);
    assert.equal((await tm.getJob(id))?.status, 'pending');
    assert.equal((await post(`${url}jobs/424242/retry`, { csrf })).status, 404);
    assert.equal((await post(`${url}jobs/9999999999999999999/retry`, { csrf })).status, 400, 'beyond bigint');
    const unknownQueue = await post(`${url}queues/pause`, { csrf, queue: '<b>nope</b>' });
    assert.equal(unknownQueue.status, 404);
    assert.match(unknownQueue.body, /queue &#39;&lt;b&gt;nope&lt;\/b&gt;&#39; does not exist/);
  });

  test('delete asks for confirmation, then deletes a finished job; a parent needs the subtree delete', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'tree',
      handler: async (job, ctx) =>
        (job.data as { child?: boolean }).child ? 'leaf' : ctx.runChild('tree', { child: true }),
    });
    tm.createQueue({ name: 'flat' });
    const parent = (await tm.addJob({ queue: 'tree', data: {} })).id;
    const flat = (await tm.addJob({ queue: 'flat', data: {} })).id;
    await tm.cancelJob(flat);
    const worker = fastWorker(tm);
    await worker.start();
    await waitForStatus(tm, parent, 'completed');
    await worker.stop();
    const { url } = await tm.dashboard({ port: 0 });
    const detail = (await get(`${url}jobs/${flat}`)).body;
    assert.ok(detail.includes(`href="/jobs/${flat}/confirm?action=delete"`));
    const confirm = (await get(`${url}jobs/${flat}/confirm?action=delete`)).body;
    assert.ok(confirm.includes(`action="/jobs/${flat}/delete"`));
    assert.ok(await tm.getJob(flat), 'the confirmation page deletes nothing');
    const deleted = await post(`${url}jobs/${flat}/delete`, { csrf: csrfIn(confirm) });
    assert.equal(deleted.status, 200);
    assert.match(deleted.body, new RegExp(`Job ${flat} was deleted`));
    assert.equal(await tm.getJob(flat), null);

    const parentPage = (await get(`${url}jobs/${parent}`)).body;
    assert.ok(!parentPage.includes('confirm?action=delete"'), 'plain delete is not offered for a parent');
    const csrf = csrfIn(parentPage);
    const refused = await post(`${url}jobs/${parent}/delete`, { csrf });
    assert.equal(refused.status, 409);
    assert.match(refused.body, /has child jobs: use deleteWorkflowSubtree/);
    const confirmTree = (await get(`${url}jobs/${parent}/confirm?action=delete-subtree`)).body;
    assert.match(confirmTree, /and its 1 descendants/);
    const tree = await post(`${url}jobs/${parent}/delete-subtree`, { csrf });
    assert.equal(tree.status, 200);
    assert.match(tree.body, /were deleted \(2 jobs\)/);
    assert.equal(await tm.getJob(parent), null);
  });

  test('pause and resume a queue', async () => {
    const tm = await open();
    tm.createQueue({ name: 'emails' });
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(url)).body);
    assert.equal((await post(`${url}queues/pause`, { csrf, queue: 'emails' })).status, 303);
    assert.equal((await tm.listQueues())[0].paused, true);
    assert.match((await get(url)).body, /<span class="paused-flag">paused<\/span>/);
    assert.equal((await post(`${url}queues/resume`, { csrf, queue: 'emails' })).status, 303);
    assert.equal((await tm.listQueues())[0].paused, false);
  });

  test('purge shows the dry-run count first, deletes only on confirmation, and never in-flight jobs', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    tm.createQueue({ name: 'b' });
    const a = await tm.addJobs(Array.from({ length: 5 }, () => ({ queue: 'a', data: {} })));
    const b = await tm.addJobs(Array.from({ length: 2 }, () => ({ queue: 'b', data: {} })));
    for (const job of a.slice(0, 3)) await tm.cancelJob(job.id);
    await tm.cancelJob(b[0].id);
    const { url } = await tm.dashboard({ port: 0 });
    const form = (await get(`${url}purge`)).body;
    const csrf = csrfIn(form);
    const request = { csrf, queue: 'a', status: ['cancelled', 'failed'], olderThanSeconds: '0' };
    const preview = await post(`${url}purge/preview`, request);
    assert.equal(preview.status, 200);
    assert.match(preview.body, /Dry run: <strong id="purge-count">3<\/strong> jobs would be deleted/);
    assert.match(preview.body, /<input type="hidden" name="confirm" value="yes">/);
    assert.equal((await tm.getJob(a[0].id))?.status, 'cancelled', 'the preview deleted nothing');
    const unconfirmed = await post(`${url}purge/confirm`, request);
    assert.match(unconfirmed.body, /Dry run/, 'without confirm=yes it only counts again');
    assert.ok(await tm.getJob(a[0].id));
    const done = await post(`${url}purge/confirm`, { ...request, confirm: 'yes' });
    assert.equal(done.status, 200);
    assert.match(done.body, /Deleted <strong id="purge-deleted">3<\/strong> jobs/);
    for (const job of a.slice(0, 3)) assert.equal(await tm.getJob(job.id), null);
    assert.equal((await tm.getJob(a[3].id))?.status, 'pending', 'in-flight jobs stay');
    assert.equal((await tm.getJob(b[0].id))?.status, 'cancelled', 'other queues stay');
    const bad = await post(`${url}purge/preview`, { csrf, status: 'pending', olderThanSeconds: '0' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /&#39;pending&#39; is not a finished status/);
    const none = await post(`${url}purge/preview`, { csrf, olderThanSeconds: '0' });
    assert.match(none.body, /Choose at least one status/);
  });
});
