import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AncestorInFlightError,
  JobInFlightError,
  PartOfWorkflowError,
  silentLogger,
} from '../../src/index.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertTree, jobExists } from '../support/factory.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

const DONE = { status: 'completed' as const, purgeAfter: -60, finishedAt: -120 };

describeEachDriver('a finished job under an ancestor in flight cannot be deleted', ({ open }) => {
  test('deleteJob and deleteWorkflowSubtree refuse with AncestorInFlightError naming the nearest ancestor', async () => {
    const tm = await open({ logger: silentLogger });
    const [root, middle, leaf] = await insertTree(tm, { status: 'active' }, [
      { status: 'waiting' },
      { ...DONE, parent: 1 },
    ]);
    const attempts = [() => tm.deleteJob(leaf), () => tm.deleteWorkflowSubtree(leaf)];
    for (const attempt of attempts) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof AncestorInFlightError, String(error));
        assert.ok(error instanceof JobInFlightError, 'a kind of in-flight refusal');
        assert.equal(error.code, 'ANCESTOR_IN_FLIGHT');
        assert.equal(error.jobId, leaf);
        assert.equal(error.ancestorId, middle, 'the nearest ancestor in flight');
        assert.equal(error.status, 'waiting');
        assert.match(error.message, new RegExp(`ancestor ${middle} is waiting`));
        return true;
      });
    }
    assert.deepEqual((await existingJobs(tm)).sort(), [root, middle, leaf].sort());
  });

  test('the dashboard Delete refuses it too, naming the ancestor', async () => {
    const tm = await open({ logger: silentLogger });
    const [root, child] = await insertTree(tm, { status: 'waiting' }, [DONE]);
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${url}jobs/${child}/confirm?action=delete`)).body);
    const refused = await post(`${url}jobs/${child}/delete`, { csrf });
    assert.equal(refused.status, 409);
    assert.match(
      refused.body,
      new RegExp(`job ${child} cannot be deleted while its ancestor ${root} is waiting`),
    );
    assert.equal(await jobExists(tm, child), true);
  });

  test('removeJobs and the sweep keep the whole tree too (R3)', async () => {
    const tm = await open({ logger: silentLogger });
    const [root, child] = await insertTree(tm, { status: 'waiting' }, [DONE]);
    assert.equal(await tm.removeJobs(), 0);
    assert.equal((await tm.sweep()).jobs, 0);
    assert.equal(await jobExists(tm, child), true);
    assert.equal(await jobExists(tm, root), true);
  });

  test('a child of a finished workflow is refused too (a retry would replay it); the tree goes whole from its top', async () => {
    const tm = await open({ logger: silentLogger });
    const [top, child] = await insertTree(tm, { status: 'failed', finishedAt: -60 }, [DONE]);
    for (const remove of [() => tm.deleteJob(child), () => tm.deleteWorkflowSubtree(child)]) {
      await assert.rejects(remove(), (error: unknown) => {
        assert.ok(error instanceof PartOfWorkflowError);
        assert.equal(error.code, 'PART_OF_WORKFLOW');
        assert.equal(error.topId, top);
        assert.match(error.message, new RegExp(`deleteWorkflowSubtree\\('${top}'\\)`));
        return true;
      });
    }
    assert.equal(await jobExists(tm, child), true);
    assert.equal(await tm.deleteWorkflowSubtree(top), 2);
    assert.equal(await jobExists(tm, child), false);
  });

  test('a failed workflow retried after an operator tried to delete its finished child runs the child once', async () => {
    const tm = await open({ logger: silentLogger });
    let childRuns = 0;
    let failParent = true;
    tm.createQueue({
      name: 'child',
      handler: async () => {
        childRuns++;
        return 1;
      },
    });
    tm.createQueue({
      name: 'order',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        const shipped = await ctx.runChild<number>('child', {});
        if (failParent) throw new Error('carrier down');
        return shipped;
      },
    });
    const worker = fastWorker(tm);
    await worker.start();
    const { id } = await tm.addJob({ queue: 'order' });
    await waitForStatus(tm, id, 'failed');
    const [child] = (await tm.getJobDetail(id))?.children ?? [];
    assert.ok(child, 'the order has its child');
    await assert.rejects(tm.deleteJob(child.id), PartOfWorkflowError);
    failParent = false;
    await tm.retryJob(id);
    assert.equal(await tm.result(id, { timeoutSeconds: 15 }), 1);
    assert.equal(childRuns, 1);
  });

  test('a workflow waiting after its child finished: the child is kept and its handler runs once', async () => {
    const tm = await open({ logger: silentLogger });
    let childRuns = 0;
    tm.createQueue({
      name: 'child',
      handler: async () => {
        childRuns++;
        return { shipped: true };
      },
    });
    tm.createQueue({
      name: 'order',
      signals: { approve: 1 },
      handler: async (_job, ctx) => {
        const shipment = await ctx.runChild('child', {});
        await ctx.waitForSignal('approve');
        return shipment;
      },
    });
    const worker = fastWorker(tm);
    await worker.start();
    const { id } = await tm.addJob({ queue: 'order' });
    const child = await waitFor('the order to wait for approval after its child completed', async () => {
      const detail = await tm.getJobDetail(id);
      const done = detail?.children.find((c) => c.status === 'completed');
      return detail?.job.status === 'waiting' && done ? done : null;
    });
    await assert.rejects(tm.deleteJob(child.id), AncestorInFlightError);
    await tm.signal(id, 'approve', {});
    const done = await waitForStatus(tm, id, 'completed');
    await worker.stop();
    assert.deepEqual(done.output, { shipped: true });
    assert.equal(childRuns, 1, 'the child was created and run once');
  });
});
