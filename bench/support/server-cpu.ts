import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds (user + system) each process named postgres has used, by pid and start. */
function postgresProcesses(): Map<string, number> | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return null;
  }
  const used = new Map<string, number>();
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      // The fields after the command name, from the state (field 3 of stat): utime (14) and
      // stime (15) in clock ticks of 10 ms (USER_HZ 100), starttime (22) telling a reused pid.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      used.set(`${pid}@${fields[19]}`, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The process ended while we read it.
    }
  }
  return used;
}

/**
 * Starts counting the CPU of the PostgreSQL server's processes, read from /proc: its backends
 * and its background processes (checkpointer, WAL writer, autovacuum). The server must run
 * on this machine, and whatever else it serves meanwhile counts too. Returns a function that
 * gives the milliseconds used since: by the processes there at both readings, what they
 * added; by those started since, all they used. A process that exits in between takes its
 * count with it, so read the end while the connections measured are still open. The function
 * returns NaN where there is no /proc (not Linux).
 */
export function startPostgresCpu(): () => number {
  const before = postgresProcesses();
  return () => {
    const after = postgresProcesses();
    if (!before || !after) return Number.NaN;
    let ms = 0;
    for (const [process, used] of after) ms += used - (before.get(process) ?? 0);
    return ms;
  };
}
