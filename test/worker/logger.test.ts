import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Logger, messages } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitForStatus } from '../support/jobs.js';

interface Entry {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every record, merging child fields as a structured logger would. */
function capturingLogger(entries: Entry[], base: Record<string, unknown> = {}, withChild = true): Logger {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void entries.push({ level, message, fields: { ...base, ...fields } });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  if (withChild) logger.child = (fields) => capturingLogger(entries, { ...base, ...fields });
  return logger;
}

/** Everything written to stderr and the console while `fn` runs. */
async function captureOutput(fn: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const original = {
    stderr: process.stderr.write.bind(process.stderr),
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    debug: console.debug,
  };
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  for (const name of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    console[name] = (...args: unknown[]) => void written.push(args.map(String).join(' '));
  }
  try {
    await fn();
  } finally {
    process.stderr.write = original.stderr;
    console.log = original.log;
    console.info = original.info;
    console.warn = original.warn;
    console.error = original.error;
    console.debug = original.debug;
  }
  return written;
}

describeEachDriver('logger', ({ open }) => {
  test('a pluggable logger receives structured records through child()', async () => {
    const entries: Entry[] = [];
    const tm = await open({ logger: capturingLogger(entries) });
    tm.createQueue({ name: 'q', handler: () => 'ok' });
    const worker = tm.worker({ id: 'logged-worker', tickIntervalSeconds: 0.1, pollIntervalSeconds: 0.05 });
    await worker.start();
    const enabled = entries.find((e) => e.message === messages.retentionEnabled);
    assert.ok(enabled, `records: ${JSON.stringify(entries)}`);
    assert.equal(enabled.level, 'info');
    assert.equal(enabled.fields.worker, 'logged-worker');
    assert.equal(enabled.fields.intervalSeconds, 3_600);
    assert.equal(enabled.fields.batchSize, 1_000);
    // once per worker, however often it is started
    await worker.stop();
    await worker.start();
    assert.equal(entries.filter((e) => e.message === messages.retentionEnabled).length, 1);
  });

  test('a logger without child() still gets the worker fields', async () => {
    const entries: Entry[] = [];
    const tm = await open({ logger: capturingLogger(entries, {}, false) });
    tm.createQueue({ name: 'q', handler: () => 'ok' });
    await tm.worker({ id: 'plain', sweep: false, tickIntervalSeconds: 0.1 }).start();
    const disabled = entries.find((e) => e.message === messages.retentionDisabled);
    assert.ok(disabled);
    assert.equal(disabled.level, 'warn');
    assert.equal(disabled.fields.worker, 'plain');
  });

  test('the default logger is quiet: a normal run prints the retention line and nothing else', async () => {
    const tm = await open();
    let calls = 0;
    tm.createQueue({
      name: 'q',
      maxAttempts: 2,
      backoff: { delaySeconds: 0 },
      handler: () => {
        calls++;
        if (calls === 1) throw new Error('one failure, retried');
        return 'ok';
      },
    });
    const written = await captureOutput(async () => {
      const worker = tm.worker({ tickIntervalSeconds: 0.1, pollIntervalSeconds: 0.05 });
      await worker.start();
      const { id } = await tm.addJob({ queue: 'q' });
      await waitForStatus(tm, id, 'completed');
      await worker.stop();
    });
    assert.equal(calls, 2);
    assert.equal(written.length, 1, written.join(''));
    assert.match(
      written[0],
      /^INFO tidemark: retention sweep enabled worker=\S+ completedAfterSeconds=2592000 /,
    );
  });
});
