import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';

export const MiB = 1024 * 1024;

/**
 * Mount a tmpfs of `bytes` at `dir` (mode 0700). Throws, saying why, where mounting is not
 * allowed (it needs root on Linux): a test that needs a disk it can fill must not pass without one.
 */
export function mountTmpfs(dir: string, bytes: number): void {
  try {
    mount(['-t', 'tmpfs', '-o', `size=${kib(bytes)}k,mode=0700`, 'tmpfs', dir]);
  } catch (error) {
    throw new Error(
      `this test fills a small disk of its own and needs to mount a tmpfs at ${dir} (root on Linux), which failed: ${outputOf(error)}`,
    );
  }
}

/** Give the tmpfs at `dir` a new size; below what it holds, mount refuses. */
export function resizeTmpfs(dir: string, bytes: number): void {
  mount(['-o', `remount,size=${kib(bytes)}k`, dir]);
}

/** Unmount the tmpfs at `dir`; lazily when something still holds it. */
export function unmountTmpfs(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
}

/** Bytes in use on the file system holding `dir`. */
export function usedBytes(dir: string): number {
  const stat = statfsSync(dir);
  return (stat.blocks - stat.bfree) * stat.bsize;
}

function mount(args: string[]): void {
  execFileSync('mount', args, { stdio: 'pipe' });
}

function kib(bytes: number): number {
  return Math.ceil(bytes / 1024);
}

function outputOf(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
  return stderr || String((error as Error).message);
}
