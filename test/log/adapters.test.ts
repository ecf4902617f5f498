import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import winston from 'winston';
import { fromPino, fromWinston } from '../../src/index.js';
import { describeOnOneDriver } from '../support/each-driver.js';

/** A stream that keeps each JSON line written to it. */
function lines() {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') records.push(JSON.parse(line));
      done();
    },
  });
  return { records, stream };
}

/** What an engine logs when a queue's policy leaves statuses out: a warning with fields. */
const GAP_WARNING = 'retention policy keeps some finished statuses forever';

test('pino, called as Tidemark calls loggers, drops the fields: the reason for the adapter', () => {
  const { records, stream } = lines();
  const logger = pino({ level: 'debug' }, stream);
  logger.info('a message', { queue: 'mail' } as never);
  assert.equal(records[0].msg, 'a message');
  assert.equal(records[0].queue, undefined);
});

describeOnOneDriver('logger adapters, against the real libraries', ({ open }) => {
  test('a pino logger passed as it is keeps every field, its child bindings too', async () => {
    const { records, stream } = lines();
    const tm = await open({ logger: pino({ level: 'debug' }, stream) as never });
    tm.createQueue({ name: 'mail', retention: { completed: 60 } });
    await tm.listQueues();
    const warning = records.find((r) => r.msg === GAP_WARNING);
    assert.ok(warning, JSON.stringify(records));
    assert.equal(warning.level, 40, 'warn');
    assert.deepEqual(warning.keptForever, 'failed, cancelled, expired');

    const adapted = fromPino(pino({ level: 'debug' }, stream)).child?.({ worker: 'w1' });
    adapted?.error('stopped', { jobs: 3 });
    assert.deepEqual(
      records.filter((r) => r.msg === 'stopped').map((r) => [r.level, r.worker, r.jobs]),
      [[50, 'w1', 3]],
    );
  });

  test('a winston logger keeps every field, through fromWinston or as it is', async () => {
    const { records, stream } = lines();
    const logger = winston.createLogger({
      level: 'debug',
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream })],
    });
    const tm = await open({ logger: fromWinston(logger) });
    tm.createQueue({ name: 'mail', retention: { completed: 60 } });
    await tm.listQueues();
    const warning = records.find((r) => r.message === GAP_WARNING);
    assert.ok(warning, JSON.stringify(records));
    assert.equal(warning.level, 'warn');
    assert.equal(warning.keptForever, 'failed, cancelled, expired');
    fromWinston(logger).child?.({ worker: 'w2' }).info('started', { queues: 2 });
    const started = records.find((r) => r.message === 'started');
    assert.deepEqual([started?.worker, started?.queues], ['w2', 2]);

    const plain = await open({ logger });
    plain.createQueue({ name: 'sms', retention: { completed: 60 } });
    await plain.listQueues();
    assert.equal(records.filter((r) => r.message === GAP_WARNING).length, 2, 'winston needs no adapter');
  });
});
