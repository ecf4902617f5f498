import { describe } from 'node:test';
import pg from 'pg';
import { freshSchema, PG_URL, TEST_DRIVERS } from '../../support/databases.js';
import { waitFor } from '../../support/wait-for.js';

export const PG_ENABLED = TEST_DRIVERS.includes('pg');

/**
 * A describe for suites that need PostgreSQL itself (several processes or connections on one
 * database). Registered only when TIDEMARK_TEST_DRIVERS includes pg, and says so in its title.
 */
export function describePg(title: string, body: () => void): void {
  if (PG_ENABLED) describe(`${title} (PostgreSQL only)`, body);
}

/** A fresh test schema (stamped, so the runner clears it two hours after a failed run). */
export function faultSchema(): string {
  return freshSchema();
}

/** The test database URL with an application_name, so this suite can find and cut only its own connections. */
export function urlFor(applicationName: string): string {
  const url = new URL(PG_URL);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/** A plain client for the test's own statements (never terminated by the test). */
export async function adminClient(name: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: urlFor(`${name}_admin`) });
  await client.connect();
  return client;
}

/** Terminate every backend whose application_name is `name` (other engineers' connections are untouched). */
export async function terminateApp(client: pg.Client, name: string): Promise<number> {
  const { rows } = await client.query(
    `select count(*) filter (where pg_terminate_backend(pid))::int as n
       from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()`,
    [name],
  );
  return Number(rows[0].n);
}

/** Wait until no backend of `name` is left (a killed client's backend finishes its statement first). */
export async function waitBackendsGone(client: pg.Client, name: string): Promise<void> {
  await waitFor(
    `backends of ${name} to end`,
    async () => {
      const { rows } = await client.query(
        'select count(*)::int as n from pg_stat_activity where application_name = $1',
        [name],
      );
      return Number(rows[0].n) === 0;
    },
    { timeoutMs: 30_000 },
  );
}

export async function dropFaultSchema(client: pg.Client, schema: string): Promise<void> {
  await client.query(`drop schema if exists "${schema}" cascade`);
}
