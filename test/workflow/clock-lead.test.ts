import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from '../../src/index.js';
import { systemClock } from '../../src/model/clock.js';
import type { ResolvedQueue } from '../../src/queues/queue-options.js';
import type { CheckpointRow } from '../../src/storage/workflow-storage.js';
import { Suspension } from '../../src/workflow/suspend.js';
import { WorkflowContext, type WorkflowContextDeps } from '../../src/workflow/workflow-context.js';

/** A context whose checkpoints hold a sleep due `dueInMs` from now, for a job claimed at `claimedAt`. */
function contextWithSleep(dueInMs: number, claimedAt: Date): WorkflowContext {
  const nap: CheckpointRow = {
    name: 'nap',
    kind: 'sleep',
    output: { wakeAt: new Date(Date.now() + dueInMs).toISOString() },
    createdAt: new Date(),
    seq: 1,
  };
  const core = {
    storage: { workflow: { listCheckpoints: async () => [nap] } },
    clock: systemClock,
  } as unknown as WorkflowContextDeps['core'];
  return new WorkflowContext({
    core,
    queue: { name: 'wf', signals: {} } as unknown as ResolvedQueue,
    job: { id: '1', queue: 'wf', startedAt: claimedAt } as Job,
    token: '00000000-0000-0000-0000-000000000000',
    attempt: { signal: () => new AbortController().signal },
    notes: { mark: () => {} },
    tracing: null,
  });
}

test('a timer the database found due is due for the handler even when this clock lags', async () => {
  // The database clock is a minute ahead: it made the 30-second timer due and the job was claimed.
  const ctx = contextWithSleep(30_000, new Date(Date.now() + 60_000));
  await ctx.sleep('nap', 30);
  assert.equal(ctx.suspension, null);
});

test('a timer not yet due suspends the job', async () => {
  const ctx = contextWithSleep(30_000, new Date());
  await assert.rejects(ctx.sleep('nap', 30), Suspension);
});
