import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { get } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

/** The events of a server-sent stream as they arrive, until it ends or `stop` is called. */
function readEvents(url: string, headers: Record<string, string> = {}) {
  const events: { event: string; data: unknown }[] = [];
  const leave = new AbortController();
  const response = fetch(url, { headers, signal: leave.signal });
  const done = (async () => {
    const res = await response;
    if (!res.ok || res.body === null) return;
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = block.match(/^event: (.*)$/m)?.[1];
          const data = block.match(/^data: (.*)$/m)?.[1];
          if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
        }
      }
    } catch (error) {
      if (!leave.signal.aborted) throw error;
    }
  })();
  return { events, response, done, stop: () => leave.abort() };
}

describeOnOneDriver('dashboard: a job page follows its job live', ({ open }) => {
  test('the page of a job in flight streams its status, progress and metadata, then says it finished', async () => {
    const tm = await open({ logger: silentLogger });
    let go: (() => void) | null = null;
    tm.createQueue({
      name: 'import',
      handler: async (_job, ctx) => {
        ctx.progress(40);
        ctx.metadata.set('rows', 400);
        await new Promise<void>((resolve) => (go = resolve));
        return 'ok';
      },
    });
    const { id } = await tm.addJob({ queue: 'import', data: {} });
    const dashboard = await tm.dashboard({ port: 0 });
    const page = await get(`${dashboard.url}jobs/${id}`);
    assert.match(
      page.body,
      new RegExp(`<p id="live" class="small muted" data-events="/jobs/${id}/events" hidden>`),
    );
    assert.match(page.body, /<script src="\/assets\/live\.js" defer><\/script>/);
    assert.match(page.res.headers.get('content-security-policy') ?? '', /connect-src 'self'/);

    const stream = readEvents(`${dashboard.url}jobs/${id}/events`);
    const res = await stream.response;
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    await waitFor('the first state', () => stream.events.length > 0);
    assert.deepEqual(stream.events[0], {
      event: 'update',
      data: { status: 'pending', attempts: 0, progress: null, metadata: {} },
    });
    const worker = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await worker.start();
    await waitFor('the progress', () =>
      stream.events.some((e) => JSON.stringify(e.data).includes('"progress":40')),
    );
    assert.ok(
      stream.events.some(
        (e) =>
          JSON.stringify(e.data) === '{"status":"active","attempts":1,"progress":40,"metadata":{"rows":400}}',
      ),
      JSON.stringify(stream.events),
    );
    await waitFor('the handler', () => go);
    (go as unknown as () => void)();
    await stream.done;
    await worker.stop();
    assert.deepEqual(stream.events.at(-1), { event: 'finished', data: {} });
    assert.equal((stream.events.at(-2)?.data as { status: string } | undefined)?.status, 'completed');

    const finished = await get(`${dashboard.url}jobs/${id}`);
    assert.doesNotMatch(finished.body, /<script/, 'a finished job streams nothing');
    assert.doesNotMatch(finished.body, /data-events/);
  });

  test('a job that does not exist says gone; a stream needs the token; a bad id is refused', async () => {
    const tm = await open({ logger: silentLogger });
    const open_ = await tm.dashboard({ port: 0 });
    const gone = readEvents(`${open_.url}jobs/999999/events`);
    await gone.done;
    assert.deepEqual(gone.events, [{ event: 'gone', data: {} }]);
    assert.equal((await get(`${open_.url}jobs/9999999999999999999/events`)).status, 400, 'past bigint');

    const guarded = await tm.dashboard({ port: 0, token: 'a-long-enough-secret-token-1234' });
    const refused = await get(`${guarded.url}jobs/1/events`);
    assert.equal(refused.status, 303, 'sent to the login page');
    const allowed = readEvents(`${guarded.url}jobs/999999/events`, {
      authorization: 'Bearer a-long-enough-secret-token-1234',
    });
    await allowed.done;
    assert.deepEqual(allowed.events, [{ event: 'gone', data: {} }]);
  });
});
