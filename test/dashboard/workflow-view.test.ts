import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finiteTime, toWorkflowView } from '../../src/admin/workflow-wait.js';
import type { Tidemark } from '../../src/index.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';

/** Run a worker on `queues` until the job reaches `status`, then stop it. */
async function runUntil(tm: Tidemark, id: string, status: string, queues?: string[]): Promise<void> {
  const worker = fastWorker(tm, queues ? { queues } : {});
  await worker.start();
  try {
    await waitForStatus(tm, id, status);
  } finally {
    await worker.stop();
  }
}

const UTC_TIME = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC';

/** The page's text with tags removed, so assertions read what an operator reads. */
function textOf(page: string): string {
  return page
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

describeOnOneDriver('dashboard: what a workflow waits for, its tree, timeline and signals', ({ open }) => {
  test('a sleeping workflow says until when and which sleep', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'cool',
      handler: async (_job, ctx) => {
        await ctx.step('prepare', () => 1);
        await ctx.sleep('cool-off', 3600);
      },
    });
    const { id } = await tm.addJob({ queue: 'cool', data: {} });
    await runUntil(tm, id, 'waiting');
    const { url } = await tm.dashboard({ port: 0 });
    const text = textOf((await get(`${url}jobs/${id}`)).body);
    const wake = (await tm.getJob(id))!.runAt.toISOString().replace('T', ' ').slice(0, 19);
    assert.ok(text.includes(`sleeping until ${wake} UTC (cool-off)`), text);
    assert.doesNotMatch(text, /suspended \(sleep, signal or child\)/);
  });

  test('a wait for 3 × vote with 1 received says so, with its timeout', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'ballot',
      signals: { vote: 5 },
      handler: async (_job, ctx) => ctx.waitForSignals('vote', 3, { timeoutSeconds: 7200 }),
    });
    const { id } = await tm.addJob({ queue: 'ballot', data: {} });
    await runUntil(tm, id, 'waiting');
    assert.deepEqual(await tm.signal(id, 'vote', { for: 'a' }), { delivered: true });
    const { url } = await tm.dashboard({ port: 0 });
    const text = textOf((await get(`${url}jobs/${id}`)).body);
    const [checkpoint] = (await tm.getJobDetail(id))!.checkpoints;
    const deadline = (checkpoint.output as { deadline: string }).deadline.replace('T', ' ').slice(0, 19);
    assert.ok(text.includes(`waiting for 3 × vote (1 received), times out at ${deadline} UTC`), text);
  });

  test('a workflow parked on a child names the child, its queue and status, and no far-future date', async () => {
    const tm = await open();
    tm.createQueue({ name: 'order', handler: async (_job, ctx) => ctx.runChild('shipping', { box: 1 }) });
    tm.createQueue({ name: 'shipping' });
    const { id } = await tm.addJob({ queue: 'order', data: {} });
    await runUntil(tm, id, 'waiting', ['order']);
    const child = (await tm.getJobDetail(id))!.children[0];
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs/${id}`)).body;
    const text = textOf(page);
    assert.ok(text.includes(`waiting for child ${child.id} (shipping, pending)`), text);
    assert.ok(page.includes(`href="/jobs/${child.id}"`));
    assert.doesNotMatch(text, /never in/);
    assert.doesNotMatch(text, /\d{7,} d/, 'no countdown to the sentinel date');
  });

  test('the tree lists every descendant of the root, the current job highlighted', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'nest',
      handler: async (job, ctx) => {
        const depth = (job.data as { depth: number }).depth;
        return depth < 2 ? ctx.runChild('nest', { depth: depth + 1 }) : 'leaf';
      },
    });
    const root = (await tm.addJob({ queue: 'nest', data: { depth: 0 } })).id;
    await runUntil(tm, root, 'completed');
    const child = (await tm.getJobDetail(root))!.children[0].id;
    const grandchild = (await tm.getJobDetail(child))!.children[0].id;
    const { url } = await tm.dashboard({ port: 0 });
    const tree = (page: string) => page.slice(page.indexOf('id="workflow-tree"'));
    const rootPage = tree((await get(`${url}jobs/${root}`)).body);
    assert.ok(rootPage.includes(`href="/jobs/${grandchild}"`), 'the root page shows the grandchild');
    const leafPage = tree((await get(`${url}jobs/${grandchild}`)).body);
    for (const member of [root, child]) assert.ok(leafPage.includes(`href="/jobs/${member}"`), member);
    assert.match(
      leafPage,
      new RegExp(
        `<li class="current" data-depth="2"><span class="node"><a href="/jobs/${grandchild}" aria-current="page">`,
      ),
    );
    // Nested: the grandchild's list sits inside the child's item, inside the root's.
    assert.match(
      leafPage,
      /^id="workflow-tree"><li data-depth="0">.*?<ul><li data-depth="1">.*?<ul><li class="current"/s,
    );
  });

  test('the step timeline draws one mark per checkpoint, escaped, and the attempts', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'steps',
      maxAttempts: 2,
      backoff: { delaySeconds: 0.01 },
      handler: async (job, ctx) => {
        await ctx.step('a<b>', () => 1);
        await ctx.step('second', () => 2);
        if (job.attempts === 1) throw new Error('first try fails');
        await ctx.step('third', () => 3);
        await ctx.sleep('nap', 0.01);
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'steps', data: {} });
    await runUntil(tm, id, 'completed');
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs/${id}`)).body;
    const svg = page.slice(page.indexOf('<svg'), page.indexOf('</svg>', page.indexOf('id="step-timeline"')));
    assert.ok(svg.includes('id="step-timeline"'), 'the timeline is drawn');
    const checkpoints = (await tm.getJobDetail(id))!.checkpoints.length;
    assert.equal(checkpoints, 4);
    assert.equal(svg.match(/class="mark-checkpoint"/g)?.length, checkpoints);
    // From the run history: the failed run, then the second attempt's runs, with the nap
    // between them when it parked (a nap over before its checkpoint was saved does not park).
    const runs = (await tm.getJobDetail(id))!.history.events.filter((e) => e.kind === 'run');
    const parked = runs.filter((run) => run.detail.outcome === 'waiting').length;
    assert.deepEqual([runs.length - parked, runs.length], [2, 2 + parked]);
    assert.equal(svg.match(/class="mark-attempt"/g)?.length, runs.length + parked);
    assert.match(svg, /<title>attempt 1, run 1: retry, /);
    assert.equal(svg.match(/<title>parked on sleep<\/title>/g)?.length, parked || undefined);
    assert.match(svg, new RegExp(`<title>attempt 2, run ${runs.length}: completed, `));
    // The history card tells each event, escaped; the attempts card names each attempt's worker.
    const history = page.slice(
      page.indexOf('id="run-history"'),
      page.indexOf('</table>', page.indexOf('id="run-history"')),
    );
    assert.ok(
      history.includes('<span class="mono">a&lt;b&gt;</span>') && !history.includes('a<b>'),
      'names are escaped',
    );
    assert.match(textOf(history), /runretry in \d+ ms on \S+: Error: first try fails/);
    if (parked) assert.match(textOf(history), /parkedsleep nap until /);
    assert.match(textOf(history), /replay2 from checkpoints: a&lt;b&gt;, second/);
    const attempts = textOf(
      page.slice(page.indexOf('<h2>Attempts</h2>'), page.indexOf('</ol>', page.indexOf('<h2>Attempts</h2>'))),
    );
    assert.match(attempts, /attempt 1 failed: Error first try fails .* on \S+/);
    assert.match(attempts, /attempt 2 completed .* on \S+/);
    assert.ok(svg.includes('a&lt;b&gt;') && !svg.includes('a<b>'), 'labels are escaped');
    assert.doesNotMatch(page, /<script|style="/);
    assert.match(svg, new RegExp(`<title>second \\(step\\) saved ${UTC_TIME}</title>`));
  });

  test('the signal form delivers and the job continues; bad JSON is refused and nothing is stored', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'approval',
      signals: { approve: 1, reject: 1 },
      handler: async (_job, ctx) => (await ctx.waitForSignal('approve')).payload,
    });
    const { id } = await tm.addJob({ queue: 'approval', data: {} });
    await runUntil(tm, id, 'waiting');
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs/${id}`)).body;
    assert.ok(page.includes(`action="/jobs/${id}/signal"`), 'the form is offered');
    assert.match(page, /<option value="approve" selected>approve \(mailbox 1\)<\/option>/);
    assert.match(page, /<option value="reject">/);
    const csrf = csrfIn(page);

    const bad = await post(`${url}jobs/${id}/signal`, { csrf, name: 'approve', payload: '{"ok": tru' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /The payload is not valid JSON \(.+\); nothing was sent\./);
    assert.ok(bad.body.includes('{&quot;ok&quot;: tru</textarea>'), 'what was typed is kept');
    assert.equal(await countRows(tm, 'signals'), 0);
    assert.equal((await tm.getJob(id))?.status, 'waiting');

    const refused = await post(`${url}jobs/${id}/signal`, { csrf, name: 'nope', payload: '1' });
    assert.equal(refused.status, 303);
    const refusedPage = textOf((await get(`${url}${refused.res.headers.get('location')!.slice(1)}`)).body);
    assert.ok(refusedPage.includes("{ delivered: false, reason: 'unknown-signal' }"), refusedPage);
    assert.equal(await countRows(tm, 'signals'), 0);

    const sent = await post(`${url}jobs/${id}/signal`, { csrf, name: 'approve', payload: '{"ok": true}' });
    assert.equal(sent.status, 303);
    assert.equal(sent.res.headers.get('location'), `/jobs/${id}?done=signal&signal=approve`);
    const sentPage = textOf((await get(`${url}jobs/${id}?done=signal&signal=approve`)).body);
    assert.ok(sentPage.includes('Signal approve sent: { delivered: true }'), sentPage);
    await runUntil(tm, id, 'completed');
    assert.deepEqual((await tm.getJob(id))?.output, { ok: true });
    const finished = (await get(`${url}jobs/${id}`)).body;
    assert.ok(!finished.includes(`action="/jobs/${id}/signal"`), 'no form on a finished job');
  });

  test('a read-only dashboard shows the wait but no signal form, and refuses the post', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'approval',
      signals: { approve: 1 },
      handler: async (_job, ctx) => (await ctx.waitForSignal('approve')).payload,
    });
    const { id } = await tm.addJob({ queue: 'approval', data: {} });
    await runUntil(tm, id, 'waiting');
    const { url } = await tm.dashboard({ port: 0, readOnly: true });
    const page = (await get(`${url}jobs/${id}`)).body;
    assert.ok(textOf(page).includes('waiting for approve, no timeout'));
    assert.ok(!page.includes('/signal"'), 'no signal form');
    assert.ok(!page.includes('<textarea'), 'no payload field');
    const res = await post(`${url}jobs/${id}/signal`, { csrf: 'x', name: 'approve', payload: '1' });
    assert.equal(res.status, 403);
    assert.equal(await countRows(tm, 'signals'), 0);
  });
});

test('every recorded wait has its words: paused, a child gone, an unknown shape, no timer', () => {
  const row = {
    status: 'waiting',
    paused_from: null,
    wait: null,
    run_at: 'infinity',
    declared_signals: { go: 2, bad: 'x' } as unknown as Record<string, number>,
    child_id: null,
    child_queue: null,
    child_status: null,
    wait_checkpoint: null,
    received: 0,
  };
  const sleeping = toWorkflowView({
    ...row,
    status: 'paused',
    paused_from: 'waiting',
    wait: { kind: 'sleep', name: 'nap' },
    run_at: new Date('2030-01-01T00:00:00Z'),
  });
  assert.deepEqual(sleeping.wait, { kind: 'sleep', name: 'nap', until: new Date('2030-01-01T00:00:00Z') });
  assert.equal(sleeping.pausedWhileWaiting, true);
  assert.deepEqual(sleeping.declaredSignals, { go: 2 }, 'only numeric mailbox sizes');
  assert.deepEqual(toWorkflowView({ ...row, wait: { kind: 'child', childId: '9' } }).wait, {
    kind: 'child',
    id: '9',
    queue: null,
    status: null,
  });
  const noTimer = toWorkflowView({
    ...row,
    wait: { kind: 'signal', names: ['go'], count: 1, key: 'wait:go' },
    wait_checkpoint: { state: 'waiting', names: ['go'], deadline: null },
  });
  assert.deepEqual(noTimer.wait, { kind: 'signal', names: ['go'], needed: 1, received: 0, timeoutAt: null });
  assert.deepEqual(toWorkflowView({ ...row, wait: { kind: 'later' } }).wait, { kind: 'unknown' });
  assert.equal(toWorkflowView({ ...row, status: 'active', wait: { kind: 'sleep' } }).wait, null);
  assert.equal(finiteTime(new Date(8.64e15)), null);
});
