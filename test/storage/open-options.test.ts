import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidOptionError, Tidemark } from '../../src/index.js';

describe('Tidemark.open options', () => {
  const cases: [string, unknown, string][] = [
    ['not an object', 'postgres://x', 'options'],
    ['an unknown option', { databse: 'memory://' }, 'databse'],
    ['capabilities that are not an object', { capabilities: true }, 'capabilities'],
    ['an unknown capability', { capabilities: { search: true } }, 'capabilities.search'],
    ['a schema that is not a lowercase identifier', { schema: 'Bad-Name' }, 'schema'],
    ['an empty schema', { schema: '' }, 'schema'],
    ['a database of the wrong type', { database: 42 }, 'database'],
    ['an empty database string', { database: '' }, 'database'],
    ['a negative retention window', { retention: { completed: -1 } }, 'retention.completed'],
    [
      'an unknown retention status',
      { retention: { ttlSeconds: 10, statuses: ['done'] } },
      'retention.statuses[0]',
    ],
    ['a logger without its methods', { logger: { info() {} } }, 'logger'],
    ['a pool size of zero', { poolSize: 0 }, 'poolSize'],
    ['a fractional pool size', { poolSize: 2.5 }, 'poolSize'],
    ['a strictDurability that is not a boolean', { strictDurability: 'yes' }, 'strictDurability'],
    ['a migrate that is not a boolean', { migrate: 1 }, 'migrate'],
    ['a preparedStatements that is not a boolean', { preparedStatements: 'no' }, 'preparedStatements'],
    ['a listenDatabase that is not a URL', { listenDatabase: 'db.internal' }, 'listenDatabase'],
    ['a listenDatabase of another kind', { listenDatabase: 'mysql://db/x' }, 'listenDatabase'],
    [
      'a listenDatabase beside an embedded database',
      { database: 'memory://', listenDatabase: 'postgres://postgres@127.0.0.1:1/none' },
      'listenDatabase',
    ],
    ['an archive that is not a function', { archive: {} }, 'archive'],
  ];
  // Where a case names no database, one that cannot be reached: a case that slipped through
  // validation fails on connecting instead of creating the default folder.
  const unreachable = 'postgres://postgres@127.0.0.1:1/none';
  for (const [what, options, field] of cases) {
    test(`refuses ${what}, naming '${field}'`, async () => {
      const input =
        typeof options === 'object' && options !== null && !('database' in options)
          ? { database: unreachable, ...options }
          : options;
      await assert.rejects(Tidemark.open(input as never), (e: unknown) => {
        assert.ok(e instanceof InvalidOptionError, `got ${String(e)}`);
        assert.equal(e.field, field);
        return true;
      });
    });
  }
});
