import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionStore } from '../../src/http/sessions.js';

test('the session table is bounded: past its size the oldest login ends', () => {
  const store = new SessionStore(1_000, 3);
  const ids = [0, 1, 2, 3].map((i) => store.open(i, `user-${i}`));
  assert.equal(store.size, 3);
  assert.equal(store.isLive(ids[0], 10), false);
  assert.equal(store.isLive(ids[3], 10), true);
  assert.equal(
    store.actorOf(ids[3], 10),
    'user-3',
    'a session keeps the name of the token it logged in with',
  );
  assert.equal(store.isLive(ids[3], 1_003), false, 'expired');
});
