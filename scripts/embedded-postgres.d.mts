export interface EmbeddedPostgres {
  /** postgres://postgres@127.0.0.1:<port>/<database>, trust auth. */
  url: string;
  port: number;
  /** server_version, e.g. "18.4". */
  version: string;
  major: number;
  /** The temporary folder holding the data folder and the server's log; gone after stop(). */
  dir: string;
  pid: number;
  stop(): Promise<void>;
}

export function startEmbeddedPostgres(options?: {
  database?: string;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgres>;
