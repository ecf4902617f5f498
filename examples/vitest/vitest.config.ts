// The vitest example's config. A project that installed tidemark from npm needs none: there
// 'tidemark/testing' resolves through the package. Here the example runs against the source,
// through tsconfig.json's `paths`, as the node:test examples do under tsx.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: { include: ['examples/vitest/*.test.ts'] },
});
