import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../src/index.js';
import { PG_URL, rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { scriptArgs } from '../support/node-args.js';
import { startWorker, table, waitForStatus } from './fixtures/helpers.js';
import { defineTwoStepWorkflow } from './fixtures/two-step-workflow.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./fixtures/kill-me-worker.ts', import.meta.url));

describeEachDriver('a workflow whose worker process is killed', ({ kind, open }) => {
  // Another process on the same database: PostgreSQL only (an embedded database has one owner).
  if (kind !== 'pg') return;

  test('resumes on another worker after recovery without re-running its first step', async () => {
    const tm = await open({ logger: silentLogger });
    await rawQuery(tm, `create table ${table(tm, 'side_effects')} (step text not null)`);
    defineTwoStepWorkflow(tm, { hang: false });
    const { id } = await tm.addJob({ queue: 'two-step' });

    const child = spawn(process.execPath, [...scriptArgs(WORKER_SCRIPT), PG_URL, tm.schema], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          if (out.includes('between-steps')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
      });
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const stranded = await tm.getJob(id);
    assert.equal(stranded?.status, 'active', 'the killed worker still holds the job until its lock lapses');

    // A worker in this process recovers the stalled job (its maintenance tick) and replays it.
    await startWorker(tm);
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 'both steps done');
    assert.equal(done.attempts, 2);
    const effects = await rawQuery<{ step: string; n: number }>(
      tm,
      `select step, count(*)::int as n from ${table(tm, 'side_effects')} group by step order by step`,
    );
    assert.deepEqual(effects, [
      { step: 'first', n: 1 },
      { step: 'second', n: 1 },
    ]);
  });
});
