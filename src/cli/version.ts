import { readFileSync } from 'node:fs';

/** This package's version, from its package.json (two folders up from src/cli and dist/cli). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
