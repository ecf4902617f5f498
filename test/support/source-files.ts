import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every TypeScript source file under a folder (`.ts` and `.cts`), depth first. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.c?ts$/.test(entry.name) ? [path] : [];
  });
}
