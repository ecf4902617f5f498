import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobStatus, messages, Retention } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { captureLogger } from './support/capture-logger.js';

describeEachDriver('policies that keep statuses forever say so once', ({ open }) => {
  test('a policy that leaves finished statuses out warns once per distinct policy, naming them', async () => {
    const { logger, lines } = captureLogger();
    const tm = await open({ logger, retention: { completed: 3_600, failed: 7_200 } });
    tm.createQueue({ name: 'a', retention: { completed: 3_600, failed: 7_200 } });
    tm.createQueue({ name: 'b', retention: { ttlSeconds: 60, statuses: [JobStatus.COMPLETED] } });
    for (let i = 0; i < 3; i++) {
      await tm.addJob({ queue: 'a', retention: { ttlSeconds: 60, statuses: [JobStatus.COMPLETED] } });
    }
    await tm.addJobs([
      { queue: 'a', retention: { consumedSignals: 60 } },
      { queue: 'a', retention: { consumedSignals: 60 } },
    ]);
    const warnings = lines(messages.retentionPolicyGaps);
    assert.deepEqual(
      warnings.map((w) => [w.level, w.fields.where, w.fields.keptForever]),
      [
        ['warn', 'engine', 'cancelled, expired'],
        ['warn', 'queue b', 'failed, cancelled, expired'],
        ['warn', 'queue a, job', 'completed, failed, cancelled, expired'],
      ],
    );
    assert.match(String(warnings[0].fields.hint), /0 to keep it forever on purpose/);
  });

  test('a status given 0, Retention.KEEP, false or {} keeps on purpose: one info line, no warning', async () => {
    const { logger, records, lines } = captureLogger();
    const tm = await open({ logger });
    tm.createQueue({ name: 'a', retention: { completed: 60, failed: 0, cancelled: 0, expired: 0 } });
    tm.createQueue({ name: 'b', retention: Retention.KEEP });
    tm.createQueue({ name: 'c', retention: false });
    tm.createQueue({ name: 'd', retention: {} });
    tm.createQueue({ name: 'e', retention: Retention.STOCK });
    await tm.listQueues();
    assert.deepEqual(
      records.filter((r) => r.level === 'warn'),
      [],
    );
    assert.deepEqual(
      lines(messages.retentionKeepsAll).map((r) => [r.level, r.fields.where]),
      [['info', 'queue b']],
    );
  });
});
