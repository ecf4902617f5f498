// CommonJS entry. Tidemark is an ES module; Node versions that can require() ES modules
// (20.19+, 22.12+) load it from here, older ones get a message that says what to do.
try {
  module.exports = require('./index.js');
} catch (error) {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
  throw new Error(
    "tidemark is an ES module (ESM-only) and this Node cannot require() it: use `import { Tidemark } from 'tidemark'`, or `const { Tidemark } = await import('tidemark')` from CommonJS, or Node 20.19+ / 22.12+",
    { cause: error },
  );
}
