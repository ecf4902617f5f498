import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { codeOf } from '../../errors.js';
import { propertyOf } from '../../model/guards.js';

/**
 * The owner file names the process that holds an embedded folder, so that a refused opener can
 * say who. Its first line is the bare pid, which is all that earlier versions read; the second
 * is JSON with the host, the time the folder was taken and the owner's process start time.
 */
export const OWNER_FILE = 'tidemark.lock';

export interface Owner {
  pid: number;
  /** The owner process's start time as the system reports it; null when unknown. */
  processStart: string | null;
}

/** This process's owner record, as file text. */
export function ownerText(): string {
  const detail = {
    pid: process.pid,
    host: hostname(),
    started: new Date().toISOString(),
    processStart: processStart(process.pid),
  };
  return `${process.pid}\n${JSON.stringify(detail)}\n`;
}

/** The raw text of an owner file; null when there is none. */
export function readOwnerText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The owner an owner file names; null when the text names none (empty, garbled). */
export function parseOwner(text: string | null): Owner | null {
  if (text === null) return null;
  const [first, second] = text.split('\n');
  const pid = Number(first);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  let start: unknown = null;
  try {
    start = propertyOf(JSON.parse(second), 'processStart');
  } catch {
    // The bare-pid form written by earlier versions.
  }
  return { pid, processStart: typeof start === 'string' ? start : null };
}

/** Whether a process with this pid exists (one we may not signal exists too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

/**
 * Whether `owner` is still the process it names: alive, and (when both start times are known)
 * started when the owner file says, so that a pid reused by an unrelated process does not count.
 */
export function ownerIsRunning(owner: Owner): boolean {
  if (!isAlive(owner.pid)) return false;
  if (owner.processStart === null) return true;
  const now = processStart(owner.pid);
  return now === null || now === owner.processStart;
}

const ownStart = new Map<number, string | null>();

/**
 * When a process started, as an opaque token: clock ticks since boot from /proc on Linux, `ps`
 * elsewhere (a spawn, made only on the file-lock path); null when neither answers.
 */
export function processStart(pid: number): string | null {
  if (pid === process.pid && ownStart.has(pid)) return ownStart.get(pid) ?? null;
  const start = readProcessStart(pid);
  if (pid === process.pid) ownStart.set(pid, start);
  return start;
}

function readProcessStart(pid: number): string | null {
  if (process.platform === 'linux' || process.platform === 'android') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name, which may hold spaces and parentheses: starttime is the 20th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return fields[19] ?? null;
    } catch {
      return null;
    }
  }
  if (process.platform === 'win32') return null;
  const ps = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 5000 });
  const text = ps.status === 0 ? ps.stdout.trim() : '';
  return text === '' ? null : text;
}
