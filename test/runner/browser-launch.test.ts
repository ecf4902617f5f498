import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LAUNCH_ATTEMPTS, launchTried } from '../support/browser.js';

/** A launch that fails with each of `errors` in turn, then succeeds; counts its calls. */
function launcher(errors: Error[]) {
  const state = { calls: 0 };
  const launch = async () => {
    const error = errors[state.calls++];
    if (error) throw error;
    return 'browser';
  };
  return { state, launch };
}

const crashed = () =>
  new Error('browserType.launch: Target page, context or browser has been closed\nBrowser logs: …');

test('a browser that dies as it starts is launched again; another failure is not retried', async () => {
  const twice = launcher([crashed(), crashed()]);
  assert.equal(await launchTried(twice.launch), 'browser');
  assert.equal(twice.state.calls, 3);

  const always = launcher(Array.from({ length: LAUNCH_ATTEMPTS + 1 }, crashed));
  await assert.rejects(launchTried(always.launch), /has been closed/);
  assert.equal(always.state.calls, LAUNCH_ATTEMPTS);

  const missing = launcher([new Error("Executable doesn't exist at /no/chromium")]);
  await assert.rejects(launchTried(missing.launch), /Executable doesn't exist/);
  assert.equal(missing.state.calls, 1);
});
