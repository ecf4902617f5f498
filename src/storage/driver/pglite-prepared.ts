import type { PGlite, QueryOptions, Results } from '@electric-sql/pglite';
import { sqlState } from '../database-errors.js';

/**
 * Named statements on PGlite, prepared once per instance and then only bound and executed.
 *
 * PGlite's `query` parses, plans and describes every statement anew (an unnamed statement, one
 * call into the database for each protocol message). node-postgres prepares a named statement
 * once per connection and PostgreSQL keeps its generic plan; on PGlite the planning ran on
 * every call, on the thread that runs everything else: about 5 ms of a 24 ms claim of 500
 * jobs. Here a named statement is parsed and described once per instance; each run sends
 * its Bind, Execute and Sync as one message, and the rows are read with PGlite's own parser
 * against the row description kept from the first time.
 */

/** A message the database answered with, as PGlite parses it. */
type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

/** What one instance knows of a statement it prepared: its parameters' types and its row description. */
interface Prepared {
  paramTypes: number[];
  /** The RowDescription the statement's Describe returned; none for a statement without rows. */
  rowDescription: BackendMessage[];
}

/**
 * The statements each instance has prepared, by name. Kept by instance, not by driver: two
 * engines may share one instance the caller passed in, and a name prepared twice is an error.
 * Names carry a digest of their text, schema included (sql/define-query.ts), so engines on other
 * schemas never share a statement by name.
 */
const preparedOn = new WeakMap<PGlite, Map<string, Prepared>>();

/** SQLSTATE 26000: the statement is gone from the session (a caller's `DEALLOCATE ALL`, say). */
const NO_SUCH_STATEMENT = '26000';

/** SQLSTATE 42P05: the session has a statement of that name already. */
const ALREADY_PREPARED = '42P05';

/** The file system is synced once a statement is done (`runPrepared`), not after each message. */
const NO_FS_SYNC = { syncToFs: false };

/** One run of a named statement. */
export interface NamedRun {
  db: PGlite;
  name: string;
  /** The statement's SQL, parsed the first time the instance runs `name`. */
  text: string;
  params: readonly unknown[];
  options: QueryOptions;
  /** Whether the caller runs it inside a transaction of its own. */
  inTransaction: boolean;
  /** Called as the statement is handed to the database, its locks held and it prepared. */
  onSend?: () => void;
}

/**
 * Run a named statement, preparing it the first time on its instance, under the locks PGlite's
 * own `query` takes: its query lock, and outside a transaction its transaction lock too, so
 * that the statement never runs inside a transaction another caller has open.
 */
export async function runNamed<Row>(call: NamedRun): Promise<Results<Row>> {
  const { db } = call;
  const run = () => db._runExclusiveQuery(() => runPrepared<Row>(call));
  if (call.inTransaction) return run();
  await db._checkReady();
  return db._runExclusiveTransaction(run);
}

/**
 * `runNamed`'s work, its locks held. Outside a transaction the instance syncs to its file system
 * after the statement, as `query` does, and a statement the session lost is prepared again and
 * run once more.
 */
async function runPrepared<Row>({
  db,
  name,
  text,
  params,
  options,
  inTransaction,
  onSend,
}: NamedRun): Promise<Results<Row>> {
  const { protocol, parse } = loaded ?? (await pgliteModule());
  let statements = preparedOn.get(db);
  if (statements === undefined) {
    statements = new Map();
    preparedOn.set(db, statements);
  }
  const run = async (): Promise<BackendMessage[]> => {
    let prepared = statements.get(name);
    if (prepared === undefined) {
      prepared = await prepare(db, protocol.serialize, parse, name, text);
      statements.set(name, prepared);
    }
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[prepared.paramTypes[index]];
      return serializer ? serializer(value) : String(value);
    });
    const { serialize } = protocol;
    onSend?.();
    const messages = await db.execProtocolStream(
      concat([serialize.bind({ statement: name, values }), serialize.execute({}), serialize.sync()]),
      NO_FS_SYNC,
    );
    return [...prepared.rowDescription, ...messages];
  };
  let messages: BackendMessage[];
  try {
    messages = await run();
  } catch (error) {
    if (sqlState(error) !== NO_SUCH_STATEMENT) throw error;
    // A caller's DEALLOCATE ALL or DISCARD ALL took every statement, not this one alone: forget
    // them all, so each statement run inside a transaction does not abort one of its own to learn
    // it. One the session still has is described as it is when prepared again (42P05).
    statements.clear();
    // Inside a transaction the failed statement has aborted it: another try would fail too.
    if (inTransaction) throw error;
    messages = await run();
  }
  if (!inTransaction) await db.syncToFs();
  const [result] = parse.parseResults(messages, db.parsers, options) as Results<Row>[];
  return result;
}

/**
 * Parse and describe `text` as the statement `name`, each followed by a Sync whether or not it
 * failed. A statement of that name the session already has (42P05: prepared by another copy of
 * this module sharing the instance, whose name says it has the same text) is described as it is.
 */
async function prepare(
  db: PGlite,
  serialize: PgliteModule['protocol']['serialize'],
  parse: PgliteModule['parse'],
  name: string,
  text: string,
): Promise<Prepared> {
  const sync = () => db.execProtocolStream(serialize.sync(), NO_FS_SYNC);
  try {
    await db.execProtocolStream(serialize.parse({ name, text }), NO_FS_SYNC);
  } catch (error) {
    await sync();
    if (sqlState(error) !== ALREADY_PREPARED) throw error;
  }
  try {
    const described = await db.execProtocolStream(serialize.describe({ type: 'S', name }), NO_FS_SYNC);
    return {
      paramTypes: parse.parseDescribeStatementResults(described),
      rowDescription: described.filter((message) => message.name === 'rowDescription'),
    };
  } finally {
    await sync();
  }
}

type PgliteModule = typeof import('@electric-sql/pglite');

/** PGlite's module, loaded with the driver (never by an engine on PostgreSQL). */
let loaded: PgliteModule | null = null;
async function pgliteModule(): Promise<PgliteModule> {
  loaded ??= await import('@electric-sql/pglite');
  return loaded;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const whole = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}
