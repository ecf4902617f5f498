export interface EmbeddedPostgres {
  /** postgres://postgres@127.0.0.1:<port>/<database>, trust auth. */
  url: string;
  port: number;
  /** server_version, e.g. "18.4". */
  version: string;
  major: number;
  /** The temporary folder holding the data folder and the server's log; gone after stop(). */
  dir: string;
  /** The first server process's pid (a restart starts another). */
  pid: number;
  stop(): Promise<void>;
  /** Shut the server down (fast: sessions are cut), keeping its folder and port for restart(). */
  halt(): Promise<void>;
  /** Start a halted server again on the same data folder and port; resolves once it accepts connections. */
  restart(): Promise<void>;
}

export function startEmbeddedPostgres(options?: {
  database?: string;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgres>;
