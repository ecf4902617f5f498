import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type pg from 'pg';
import { NodePostgresDriver } from '../../src/storage/driver/node-postgres.js';

/**
 * A pool that hands over a new connection the way node-postgres does: from inside the read of
 * the connection's first bytes, after which the same read reports the server terminating it
 * ("terminating connection due to administrator command", when a restart or
 * pg_terminate_backend lands just as the connection starts). An 'error' event with no listener
 * throws where it is emitted: in node-postgres, that is an uncaught exception.
 */
function poolThatLosesNewConnections() {
  const client = Object.assign(new EventEmitter(), {
    query: async () => {
      throw new Error('Client has encountered a connection error and is not queryable');
    },
    release: () => {},
  });
  const seen = { listenersAtHandOver: -1, uncaught: null as unknown };
  const terminate = () => {
    seen.listenersAtHandOver = client.listenerCount('error');
    try {
      client.emit('error', new Error('terminating connection due to administrator command'));
    } catch (error) {
      seen.uncaught = error;
    }
  };
  const pool = {
    on() {},
    off() {},
    options: {},
    connect(callback?: (error: Error | undefined, client: unknown, release: () => void) => void) {
      if (callback) {
        setImmediate(() => {
          callback(undefined, client, client.release);
          terminate();
        });
        return undefined;
      }
      return new Promise((resolve) => {
        setImmediate(() => {
          resolve(client);
          terminate();
        });
      });
    },
  };
  return { pool: pool as unknown as pg.Pool, seen };
}

describe('node-postgres driver: a connection terminated as the pool hands it over', () => {
  test('the transaction listens from the hand-over: it rejects, and nothing is thrown uncaught', async () => {
    const { pool, seen } = poolThatLosesNewConnections();
    const driver = new NodePostgresDriver(pool, false);
    await assert.rejects(driver.transaction(async () => 'never'));
    assert.equal(seen.listenersAtHandOver, 1, 'an error listener was there when the error came');
    assert.equal(seen.uncaught, null);
  });
});

describe('node-postgres driver: a pool it made, after close', () => {
  test('a late connection error from the closed pool is not thrown uncaught, nor reported', async () => {
    const errors: unknown[] = [];
    const driver = NodePostgresDriver.fromUrl('postgres://postgres@127.0.0.1:1/none', {
      onError: (error) => errors.push(error),
    });
    await driver.close();
    // What pg-pool does when a client it still tracks hears "terminating connection" from a
    // server shutting down: it re-emits the error on the pool.
    assert.doesNotThrow(() =>
      driver.pool.emit('error', new Error('terminating connection due to administrator command')),
    );
    assert.deepEqual(errors, []);
  });
});
