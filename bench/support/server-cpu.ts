import { readdirSync, readFileSync } from 'node:fs';

/** Pids seen not to be postgres, by pid and start time, so a reading skips them. */
const others = new Set<string>();

/**
 * CPU milliseconds (user + system) each process named postgres has used, keyed by pid and
 * start time (a pid may be reused); null where there is no /proc (not Linux).
 */
function postgresProcesses(): Map<string, number> | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return null;
  }
  const used = new Map<string, number>();
  for (const pid of pids) {
    if (!/^\d+$/.test(pid) || others.has(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) {
        others.add(pid);
        continue;
      }
      // The fields after the command name, from the state (field 3 of stat): utime (14) and
      // stime (15) in clock ticks of 10 ms (USER_HZ 100), starttime (22).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      used.set(`${pid}@${fields[19]}`, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The process ended while we read it.
    }
  }
  return used;
}

export interface PostgresCpu {
  /** Read now (besides every `everyMs`): what a process has used is kept if it then exits. */
  sample(): void;
  /** The last reading; the milliseconds the server's processes used since the start. */
  stop(): number;
}

/**
 * Counts the CPU of the PostgreSQL server's processes, read from /proc: its backends and its
 * background processes (checkpointer, WAL writer, autovacuum). The server must run on this
 * machine, and whatever else it serves meanwhile counts too. A process there at the start
 * counts what it added since; one started since, all it used. A process that exits takes its
 * count with it, so the processes are read every `everyMs` (and at each `sample()`), and one
 * that exits counts up to its last reading. NaN where there is no /proc (not Linux).
 */
export function startPostgresCpu(everyMs?: number): PostgresCpu {
  const before = postgresProcesses();
  const seen = new Map<string, number>();
  const sample = () => {
    for (const [process, used] of postgresProcesses() ?? []) seen.set(process, used);
  };
  const timer = everyMs ? setInterval(sample, everyMs) : null;
  timer?.unref();
  return {
    sample,
    stop() {
      if (timer) clearInterval(timer);
      if (!before) return Number.NaN;
      sample();
      let ms = 0;
      for (const [process, used] of seen) ms += used - (before.get(process) ?? 0);
      return ms;
    },
  };
}
