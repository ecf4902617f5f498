#!/usr/bin/env node
// Writes dist/pglite-seed/: the data folder a new embedded folder starts from (initdb and every
// migration, for the default schema), made with the installed PGlite. Run by `npm run build`
// after tsc, from dist/. Kept when it still fits this code and PGlite, since making it takes
// a normal first open (several seconds); --force makes it again. It reports on stderr: stdout
// is `npm pack --json`'s, which runs the build through `prepare`.
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/', import.meta.url);
const out = fileURLToPath(new URL('pglite-seed/', dist));
const { openOptions } = await import(new URL('options/open-options.js', dist).href);
const { buildPgliteSeed, seedIsCurrent } = await import(new URL('storage/pglite-seed-build.js', dist).href);
const { SEED_ARCHIVE, SEED_MANIFEST } = await import(new URL('storage/driver/pglite-seed.js', dist).href);

const { schema } = openOptions.read({});
if (!process.argv.includes('--force') && seedIsCurrent(out, schema)) {
  // As new as the rest of dist/, which is how a build leaves it.
  const now = new Date();
  for (const file of [SEED_ARCHIVE, SEED_MANIFEST]) utimesSync(join(out, file), now, now);
  console.error('dist/pglite-seed: current');
} else {
  const started = performance.now();
  const manifest = await buildPgliteSeed(out, schema);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(
    `dist/pglite-seed: PGlite ${manifest.pglite}, schema ${manifest.schema} at version ${manifest.migrations.length} (${seconds} s)`,
  );
}
