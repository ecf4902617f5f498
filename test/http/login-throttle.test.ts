import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressKey, LoginThrottle } from '../../src/http/login-throttle.js';

test('the throttle table is bounded, a flood of addresses shares one count instead of pushing one out, and an IPv6 /64 is one client', () => {
  let now = 0;
  const throttle = new LoginThrottle(() => now, { maxFailures: 2, windowMs: 60_000, maxAddresses: 3 });
  throttle.fail('10.0.0.1');
  assert.equal(throttle.waitMs('10.0.0.1'), 0, 'under the limit');
  throttle.fail('10.0.0.1');
  assert.equal(throttle.waitMs('10.0.0.1'), 60_000);
  now += 1_000;
  for (let i = 0; i < 100; i++) throttle.fail(`10.1.0.${i}`);
  assert.ok(throttle.size <= 4, `bounded table: ${throttle.size}`);
  assert.equal(throttle.waitMs('10.0.0.1'), 59_000, 'the refused address keeps its count');
  assert.ok(throttle.waitMs('10.9.9.9') > 0, 'further addresses share the flooded count');
  now += 60_000;
  assert.equal(throttle.waitMs('10.0.0.1'), 0, 'the window is over');
  assert.equal(throttle.waitMs('10.9.9.9'), 0);
  throttle.fail('10.9.9.9');
  assert.ok(throttle.size <= 2, `expired windows are dropped: ${throttle.size}`);

  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
  assert.notEqual(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
  assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1');
  throttle.fail('2001:db8:1:2::1');
  throttle.fail('2001:db8:1:2::2');
  assert.ok(throttle.waitMs('2001:db8:1:2::3') > 0, 'a /64 shares its count');
});
