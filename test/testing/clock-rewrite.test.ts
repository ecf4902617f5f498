import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../../src/storage/migrations/index.js';
import { bindSchema } from '../../src/storage/schema-name.js';
import { onTestClock, readsDatabaseTime } from '../../src/storage/sql/test-kit.js';
import { createTestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { everyQuery } from '../support/every-query.js';

const SCHEMA = 'tidemark';

test('on the test clock no statement or migration reads the database time; as written, many do', async () => {
  const texts = [
    ...(await everyQuery()).map(({ id, query }) => ({ id, text: query.text(SCHEMA) })),
    ...migrations.map((m) => ({ id: `migration ${m.version}`, text: bindSchema(m.sql, SCHEMA) })),
  ];
  const reading = texts.filter(({ text }) => readsDatabaseTime(text));
  assert.ok(reading.length >= 30, `${reading.length} read the time as written`);
  const left = texts.filter(({ text }) => readsDatabaseTime(onTestClock(text, SCHEMA))).map(({ id }) => id);
  assert.deepEqual(left, []);
  assert.equal(readsDatabaseTime('select now()'), true);
  assert.equal(readsDatabaseTime('select current_timestamp, clock_timestamp()'), true);
});

test('on the test clock every statement is prepared without error, and reads the test time', async () => {
  const tm = await createTestTidemark({ now: new Date('2031-02-03T04:05:06Z') });
  try {
    const failures: string[] = [];
    for (const [i, { id, query }] of (await everyQuery()).entries()) {
      const text = onTestClock(query.text(tm.schema), tm.schema);
      if (/^\s*(vacuum|analyze)\b/i.test(text)) continue;
      try {
        await rawQuery(tm, `prepare tm_clock_${i} as ${text}`);
        await rawQuery(tm, `deallocate tm_clock_${i}`);
      } catch (error) {
        failures.push(`${id}: ${(error as Error).message}`);
      }
    }
    assert.deepEqual(failures, []);
    const [row] = await rawQuery<{ at: Date; created: Date }>(
      tm,
      onTestClock(
        `select now() as at, (select created_at from "${tm.schema}".jobs limit 0) as created`,
        tm.schema,
      ),
    );
    assert.equal(row.at.toISOString(), '2031-02-03T04:05:06.000Z');
    await tm.clock.advance(60);
    tm.createQueue({ name: 'producer-only' });
    const { id } = await tm.addJob({ queue: 'producer-only', data: {} });
    const job = await tm.getJob(id);
    assert.equal(
      job?.createdAt.toISOString(),
      '2031-02-03T04:06:06.000Z',
      'the job was added at the test time',
    );
  } finally {
    await tm.close();
  }
});
